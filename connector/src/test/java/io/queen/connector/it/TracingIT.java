package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.queen.connector.app.Producer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.TracedBlockingConsumer;
import io.queen.connector.app.TracedRelay;
import io.queen.connector.app.Transformer;
import io.queen.connector.app.WeldApp;
import io.queen.connector.health.TraceIds;
import io.vertx.core.json.JsonObject;

/**
 * Traces through a real broker: the producer span of a message pushed inside an application span, the consumer
 * span of its delivery (a child of the producer span through the {@code traceparent} the broker stores and answers),
 * that span current in a non-blocking {@code @Incoming} method, and the producer spans of what the method emits
 * (through an {@code @Outgoing} channel or {@code QueenTransactions.toChannel}) in the same trace.
 */
class TracingIT extends BrokerTest {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @BeforeEach
    void openTelemetry() {
        TracedRelay.CURRENT.clear();
        TracedBlockingConsumer.IN_METADATA.clear();
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build());
    }

    @AfterEach
    void resetOpenTelemetry() {
        GlobalOpenTelemetry.resetForTest();
    }

    private void startRelay(String queue, String... extra) {
        Map<String, String> config = merge(merge(
                channel("mp.messaging.outgoing.out", "queue", queue),
                channel("mp.messaging.incoming.in", "queue", queue, "consumer-group", "relay", "wait-timeout", "500")),
                channel("mp.messaging.outgoing.onward", "queue", queue + "-onward"));
        for (int i = 0; i < extra.length; i += 2) {
            config.put(extra[i], extra[i + 1]);
        }
        app = WeldApp.start(config, Producer.class, TracedRelay.class);
    }

    /** Sends {"id": 1} on channel out inside a span "checkout"; returns that span's context. */
    private SpanContext sendInsideASpan() {
        Span checkout = GlobalOpenTelemetry.getTracer("test").spanBuilder("checkout").startSpan();
        try (Scope ignored = checkout.makeCurrent()) {
            app.bean(Producer.class).send(new JsonObject().put("id", 1)).toCompletableFuture().join();
        } finally {
            checkout.end();
        }
        return checkout.getSpanContext();
    }

    @Test
    void theConsumerSpanIsTheChildOfTheProducerSpan() {
        startRelay("tr-link");
        SpanContext checkout = sendInsideASpan();
        SpanData published = awaitSpan(SpanKind.PRODUCER, "tr-link publish");
        assertEquals(checkout.getSpanId(), published.getParentSpanId(), "the producer span's parent: the current span");
        assertEquals(checkout.getTraceId(), published.getTraceId());
        assertEquals("queen", published.getAttributes().get(MessageAttributes.SYSTEM));
        assertEquals("tr-link", published.getAttributes().get(MessageAttributes.DESTINATION));

        SpanData received = awaitSpan(SpanKind.CONSUMER, "tr-link receive");
        assertEquals("tr-link", received.getAttributes().get(MessageAttributes.DESTINATION));
        assertEquals(published.getTraceId(), received.getTraceId(),
                "the broker gave the message back with its traceparent: one trace");
        assertEquals(published.getSpanId(), received.getParentSpanId(), "the consumer span's parent: the producer span");

        await().atMost(Duration.ofSeconds(10)).until(() -> TracedRelay.CURRENT.size() >= 1);
        assertEquals(received.getSpanId(), TracedRelay.CURRENT.get(0).getSpanId(),
                "the @Incoming method runs with the consumer span current");
        SpanData onward = awaitSpan(SpanKind.PRODUCER, "tr-link-onward publish");
        assertEquals(checkout.getTraceId(), onward.getTraceId());
        assertEquals(received.getSpanId(), onward.getParentSpanId(), "the onward message continues the trace");
    }

    @Test
    void theConsumerSpanIsCurrentInTheMethodAndTheOnwardMessageContinuesItsTrace() {
        startRelay("tr-relay");
        broker.push("tr-relay", "p0", List.of(Map.of("id", 7)), null);
        SpanData received = awaitSpan(SpanKind.CONSUMER, "tr-relay receive");
        assertEquals("queen", received.getAttributes().get(MessageAttributes.SYSTEM));
        assertEquals("relay", received.getAttributes().get(MessageAttributes.CONSUMER_GROUP));
        await().atMost(Duration.ofSeconds(10)).until(() -> TracedRelay.CURRENT.size() >= 1);
        SpanContext current = TracedRelay.CURRENT.get(0);
        assertEquals(received.getTraceId(), current.getTraceId());
        assertEquals(received.getSpanId(), current.getSpanId(), "Span.current() in the method: the consumer span");

        SpanData onward = awaitSpan(SpanKind.PRODUCER, "tr-relay-onward publish");
        assertEquals(received.getTraceId(), onward.getTraceId());
        assertEquals(received.getSpanId(), onward.getParentSpanId());
        JsonNode relayed = awaitOne("tr-relay-onward");
        assertEquals(TraceIds.ofTraceparent("00-" + onward.getTraceId() + "-" + onward.getSpanId() + "-01"),
                relayed.path("traceId").asText(), "the traceId stored with the onward message: its trace");
    }

    @Test
    void aBlockingMethodFindsTheConsumerSpanInItsMessage() {
        broker.push("tr-blocking", "p0", List.of(Map.of("id", 5)), null);
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "tr-blocking", "consumer-group", "worker",
                "wait-timeout", "500"), TracedBlockingConsumer.class);
        SpanData received = awaitSpan(SpanKind.CONSUMER, "tr-blocking receive");
        await().atMost(Duration.ofSeconds(10)).until(() -> TracedBlockingConsumer.IN_METADATA.size() >= 1);
        assertEquals(received.getSpanId(), TracedBlockingConsumer.IN_METADATA.get(0).getSpanId(),
                "the message's TracingMetadata holds the consumer span on the worker thread");
    }

    @Test
    void toChannelOutputsGetProducerSpansInTheInputsTrace() {
        broker.push("tr-txn", "p0", List.of(Map.of("id", 1)), null);
        app = WeldApp.start(merge(
                channel("mp.messaging.incoming.in", "queue", "tr-txn", "consumer-group", "billing", "wait-timeout", "500"),
                channel("mp.messaging.outgoing.out", "queue", "tr-txn-invoices")), Transformer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 1);
        SpanData received = awaitSpan(SpanKind.CONSUMER, "tr-txn receive");
        List<SpanData> outputs = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("tr-txn-invoices publish")).toList();
        assertEquals(2, outputs.size(), "one producer span per output: " + spans.getFinishedSpanItems());
        for (SpanData o : outputs) {
            assertEquals(SpanKind.PRODUCER, o.getKind());
            assertEquals(received.getTraceId(), o.getTraceId());
            assertEquals(received.getSpanId(), o.getParentSpanId());
        }
    }

    @Test
    void withTracingDisabledNoSpanIsMadeAndMessagesStillArrive() {
        startRelay("tr-off", "mp.messaging.connector.smallrye-queen.tracing-enabled", "false");
        sendInsideASpan();
        await().atMost(Duration.ofSeconds(10)).until(() -> TracedRelay.CURRENT.size() >= 1);
        assertTrue(!TracedRelay.CURRENT.get(0).isValid(), "no consumer span current");
        awaitOne("tr-off-onward");
        assertEquals(List.of("checkout"), spans.getFinishedSpanItems().stream().map(SpanData::getName).toList(),
                "only the application's own span");
    }

    @Test
    void withoutTheTracingLibraryMessagesStillFlow() {
        broker.push("tr-none", "p0", List.of(Map.of("id", 3)), null);
        Map<String, String> config = merge(
                channel("mp.messaging.incoming.in", "queue", "tr-none", "consumer-group", "relay", "wait-timeout", "500"),
                channel("mp.messaging.outgoing.onward", "queue", "tr-none-onward"));
        try (AppProcess relay = AppProcess.start("tr-none", config,
                List.of("smallrye-reactive-messaging-otel", "opentelemetry-instrumentation-api"), TracedRelay.class)) {
            assertEquals(3, awaitOne("tr-none-onward").path("data").path("id").asInt(), relay.log());
        }
    }

    private SpanData awaitSpan(SpanKind kind, String name) {
        await().atMost(Duration.ofSeconds(15)).until(() -> spans.getFinishedSpanItems().stream()
                .anyMatch(s -> s.getKind() == kind && s.getName().equals(name)));
        return spans.getFinishedSpanItems().stream().filter(s -> s.getKind() == kind && s.getName().equals(name))
                .findFirst().orElseThrow();
    }

    private static JsonNode awaitOne(String queue) {
        List<JsonNode> got = new java.util.ArrayList<>();
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            got.addAll(broker.drain(queue, "check"));
            return !got.isEmpty();
        });
        return got.get(0);
    }

    /** The span attributes the tests read. */
    private static final class MessageAttributes {
        static final io.opentelemetry.api.common.AttributeKey<String> SYSTEM =
                io.opentelemetry.api.common.AttributeKey.stringKey("messaging.system");
        static final io.opentelemetry.api.common.AttributeKey<String> DESTINATION =
                io.opentelemetry.api.common.AttributeKey.stringKey("messaging.destination.name");
        static final io.opentelemetry.api.common.AttributeKey<String> CONSUMER_GROUP =
                io.opentelemetry.api.common.AttributeKey.stringKey("messaging.consumer.group.name");
    }
}
