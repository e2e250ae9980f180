package io.queen.tracing;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.FreshDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A message carries its producer's W3C trace context (an item's {@code traceparent}, a push request's header or a
 * Kafka record's {@code traceparent} header) and gives it back to HTTP readers and Kafka consumers; the broker's
 * spans for push, pop, ack and Kafka produce/fetch continue or link those traces.
 */
@QuarkusTest
@TestProfile(TracingEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TracingTest extends KafkaListenerClients {

    @jakarta.inject.Inject
    io.queen.compaction.CompactionCycle compaction;

    /** A fresh sampled W3C trace context. */
    static TraceParent fresh() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new TraceParent(new UUID(r.nextLong() | 1, r.nextLong()), r.nextLong() | 1, (byte) 1);
    }

    static String hex(long span) {
        return String.format("%016x", span);
    }

    static JsonNode push(String body, String header) {
        var req = given().contentType("application/json").body(body);
        if (header != null) {
            req = req.header("traceparent", header);
        }
        return req.when().post("/api/v1/push").then().statusCode(201).extract().as(JsonNode.class);
    }

    static SpanData only(List<SpanData> spans, String name) {
        List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
        assertEquals(1, named.size(), name + " in " + spans);
        return named.get(0);
    }

    @Test
    void anItemsTraceparentIsStoredGivenBackOnPopAndParentsThePushSpan() throws Exception {
        TraceParent producer = fresh();
        TraceParent other = fresh();
        push("{\"items\":[{\"queue\":\"tr-item\",\"payload\":{\"n\":1},\"traceparent\":\"" + producer + "\"},"
                + "{\"queue\":\"tr-item\",\"payload\":{\"n\":2},\"traceparent\":\"" + other + "\"},"
                + "{\"queue\":\"tr-item\",\"payload\":{\"n\":3}}]}", null);

        JsonNode popped = pop("/api/v1/pop/queue/tr-item?batch=10&wait=false");
        List<JsonNode> ms = messages(popped);
        assertEquals(3, ms.size());
        assertEquals(producer.toString(), ms.get(0).get("traceparent").asText());
        assertEquals(producer.traceId().toString(), ms.get(0).get("traceId").asText());
        assertEquals(other.toString(), ms.get(1).get("traceparent").asText());
        assertTrue(ms.get(2).get("traceparent").isNull());
        assertTrue(ms.get(2).get("traceId").isNull());

        SpanData push = only(SpanCapture.trace(producer.traceId()), "queen push");
        assertEquals(SpanKind.SERVER, push.getKind());
        assertEquals(hex(producer.spanId()), push.getParentSpanId());
        assertEquals("tr-item", push.getAttributes().get(BrokerTracing.DESTINATION));
        assertEquals(3L, push.getAttributes().get(BrokerTracing.COUNT));
        assertEquals(1, SpanCapture.linking("queen push", other.traceId(), hex(other.spanId())).size(),
                "the second message's producer span is linked");

        // the console's message view shows it too
        String pid = ms.get(0).get("partitionId").asText();
        String txn = ms.get(0).get("transactionId").asText();
        given().when().get("/api/v1/messages/" + pid + "/" + txn).then().statusCode(200)
                .body(containsString(producer.toString()));
        ackAll(popped, "completed", null);
    }

    @Test
    void theRequestsTraceparentHeaderParentsThePushAndPopSpansAndTagsItemsWithoutOne() {
        TraceParent request = fresh();
        TraceParent own = fresh();
        push("{\"items\":[{\"queue\":\"tr-header\",\"payload\":1},"
                + "{\"queue\":\"tr-header\",\"payload\":2,\"traceparent\":\"" + own + "\"}]}", request.toString());
        SpanData push = only(SpanCapture.trace(request.traceId()), "queen push");
        assertEquals(hex(request.spanId()), push.getParentSpanId());

        TraceParent consumer = fresh();
        JsonNode popped = given().header("traceparent", consumer.toString())
                .when().get("/api/v1/pop/queue/tr-header?batch=10&wait=false")
                .then().statusCode(200).extract().as(JsonNode.class);
        List<JsonNode> ms = messages(popped);
        assertEquals(request.toString(), ms.get(0).get("traceparent").asText(), "inherited from the header");
        assertEquals(own.toString(), ms.get(1).get("traceparent").asText(), "an item's own context wins");
        SpanData pop = only(SpanCapture.trace(consumer.traceId()), "queen pop");
        assertEquals(hex(consumer.spanId()), pop.getParentSpanId());
        assertEquals(2L, pop.getAttributes().get(BrokerTracing.COUNT));

        TraceParent acker = fresh();
        given().contentType("application/json").header("traceparent", acker.toString())
                .body(io.queen.testing.Api.ackAllBody(popped, "completed", null))
                .when().post("/api/v1/ack/batch").then().statusCode(200);
        SpanData ack = only(SpanCapture.trace(acker.traceId()), "queen ack");
        assertEquals(200L, ack.getAttributes().get(io.opentelemetry.api.common.AttributeKey.longKey(
                "http.response.status_code")));
    }

    @Test
    void aMalformedTraceparentIsRefusedNamingItsItemAndAMalformedHeaderIgnored() {
        for (String bad : new String[] {"00-xyz", "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}) {
            given().contentType("application/json")
                    .body("{\"items\":[{\"queue\":\"tr-bad\",\"payload\":1},{\"queue\":\"tr-bad\",\"payload\":2,"
                            + "\"traceparent\":\"" + bad + "\"}]}")
                    .when().post("/api/v1/push").then().statusCode(400)
                    .body("error", containsString("items[1].traceparent"));
        }
        TraceParent t = fresh();
        given().contentType("application/json").body("{\"items\":[{\"queue\":\"tr-bad\",\"payload\":1,\"traceId\":\""
                + UUID.randomUUID() + "\",\"traceparent\":\"" + t + "\"}]}")
                .when().post("/api/v1/push").then().statusCode(400)
                .body("error", containsString("different traces"));
        JsonNode ok = push("{\"items\":[{\"queue\":\"tr-bad\",\"payload\":3}]}", "not-a-traceparent");
        assertEquals("queued", ok.get(0).get("status").asText());
        assertTrue(ok.get(0).get("trace_id").isNull());
    }

    @Test
    void kafkaRecordsTraceparentHeadersReachHttpReadersAndHttpProducersReachKafkaConsumers() throws Exception {
        String topic = "tr-kafka";
        TraceParent producer = fresh();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<String, String> kp = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            ProducerRecord<String, String> rec = new ProducerRecord<>(topic, 0, "k", "\"v\"");
            rec.headers().add("traceparent", producer.toString().getBytes(StandardCharsets.US_ASCII));
            kp.send(rec).get();
        }
        JsonNode popped = pop("/api/v1/pop/queue/" + topic + "?batch=10&wait=false");
        JsonNode m = messages(popped).get(0);
        assertEquals(producer.toString(), m.get("traceparent").asText());
        assertEquals(producer.traceId().toString(), m.get("traceId").asText());
        List<SpanData> produce = SpanCapture.linking("kafka Produce", producer.traceId(), hex(producer.spanId()));
        assertEquals(1, produce.size(), "the produce span links the record's producer span");
        assertEquals(SpanKind.SERVER, produce.get(0).getKind());

        // an HTTP producer's context reaches a Kafka consumer as the record's traceparent header
        TraceParent http = fresh();
        push("{\"items\":[{\"queue\":\"" + topic + "\",\"partition\":\"0\",\"payload\":{\"from\":\"http\"},"
                + "\"traceparent\":\"" + http + "\"}]}", null);
        List<String> headers = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProperties(bootstrap(), null),
                new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(new TopicPartition(topic, 0)));
            c.seekToBeginning(c.assignment());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (headers.size() < 2 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    Header h = r.headers().lastHeader("traceparent");
                    headers.add(h == null ? null : new String(h.value(), StandardCharsets.US_ASCII));
                }
            }
        }
        assertEquals(List.of(producer.toString(), http.toString()), headers);
        assertTrue(SpanCapture.EXPORTER.getFinishedSpanItems().stream()
                .anyMatch(s -> s.getName().equals("kafka Fetch")), "fetches are traced");
    }

    @Test
    void aMaintenanceCycleIsASpan() throws Exception {
        java.util.function.LongSupplier spans = () -> SpanCapture.EXPORTER.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("queen compaction")).count();
        long before = spans.getAsLong();
        io.queen.compaction.CompactionCycle.Report r = compaction.runOnce(java.time.Instant.now());
        assertEquals(before + 1, spans.getAsLong());
        SpanData last = SpanCapture.EXPORTER.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("queen compaction")).reduce((a, b) -> b).orElseThrow();
        assertEquals(SpanKind.INTERNAL, last.getKind());
        assertEquals((long) r.passes().size(), last.getAttributes().get(
                io.opentelemetry.api.common.AttributeKey.longKey("queen.compaction.passes")));
    }
}
