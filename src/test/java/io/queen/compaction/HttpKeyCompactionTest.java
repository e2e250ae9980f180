package io.queen.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.luben.zstd.Zstd;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEncrypted;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.queen.testing.StorageInvariants;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The explicit key of an HTTP push item: compaction keeps the latest message of each key and every unkeyed one, a
 * keyed {@code null} payload is a tombstone, pop and the message views give the key (a Kafka record's too), a Kafka
 * consumer reads it as the record key, an invalid key is a 400 naming the field, and an encrypted queue stores it
 * encrypted. Cycles run through {@link CompactionCycle#runOnce} with an explicit instant, never on a timer.
 */
@QuarkusTest
@TestProfile(KafkaEncrypted.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class HttpKeyCompactionTest extends KafkaListenerClients {

    @Inject
    CompactionCycle cycle;

    @Inject
    AgroalDataSource ds;

    private static void compacted(String queue, String options, String compaction) {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"" + queue + "\",\"options\":" + options
                + ",\"compaction\":{\"cleanupPolicy\":\"compact\"" + compaction + "}}");
        assertEquals(200, r.status(), r.body());
    }

    private static ObjectNode item(ArrayNode items, String queue, String key) {
        ObjectNode it = items.addObject().put("queue", queue).put("partition", "0");
        if (key != null) {
            it.put("key", key);
        }
        return it;
    }

    private static Http.Reply push(ArrayNode items) {
        ObjectNode body = Api.M.createObjectNode();
        body.set("items", items);
        return Http.post("/api/v1/push", body.toString());
    }

    private static void pushed(ArrayNode items) {
        Http.Reply r = push(items);
        assertEquals(201, r.status(), r.body());
    }

    /** One unkeyed message in a request of its own: the head segment compaction leaves alone. */
    private static void head(String queue, String name) {
        ArrayNode items = Api.M.createArrayNode();
        item(items, queue, null).putObject("payload").put("head", name);
        pushed(items);
    }

    /** Everything a fresh consumer group pops from partition 0 of {@code queue}, acking as it goes. */
    private static List<JsonNode> popAll(String queue, String group) {
        List<JsonNode> out = new ArrayList<>();
        while (true) {
            JsonNode p = Api.pop("/api/v1/pop/queue/" + queue + "/partition/0?batch=5000&wait=false&consumerGroup="
                    + group);
            if (p == null) {
                return out;
            }
            out.addAll(Api.messages(p));
            Api.ackAll(p, "completed", group);
        }
    }

    /** Every record of Kafka partition 0 of {@code topic}, in order. */
    private List<ConsumerRecord<byte[], byte[]>> kafkaRead(String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(bootstrap(), null),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(tp) < end) {
                assertTrue(System.nanoTime() < deadline, "reading " + topic + " stalled at " + c.position(tp));
                c.poll(Duration.ofMillis(100)).forEach(out::add);
            }
            return out;
        }
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** 200 keys x 10 updates and 5 unkeyed messages per update, each update one push (one segment). */
    private static void keysAndUpdates(String queue, String keyPrefix, int keys, int updates, int unkeyed) {
        for (int u = 0; u < updates; u++) {
            ArrayNode items = Api.M.createArrayNode();
            for (int k = 0; k < keys; k++) {
                item(items, queue, keyPrefix + k).putObject("payload").put("k", k).put("u", u);
            }
            for (int i = 0; i < unkeyed; i++) {
                item(items, queue, null).putObject("payload").put("plain", u * unkeyed + i);
            }
            pushed(items);
        }
        head(queue, "h");
    }

    /** The latest {@code u} of each key among popped messages, checking each key is there once. */
    private static Map<String, Integer> latestByKey(List<JsonNode> popped) {
        Map<String, Integer> out = new HashMap<>();
        for (JsonNode m : popped) {
            if (!m.get("key").isNull()) {
                assertNull(out.put(m.get("key").asText(), m.get("data").get("u").asInt()), "once: " + m);
            }
        }
        return out;
    }

    @Test
    void compactionKeepsTheLatestMessageOfEveryKeyAndEveryUnkeyedMessage() throws Exception {
        String queue = "http-keys";
        compacted(queue, "{}", "");
        keysAndUpdates(queue, "key-", 200, 10, 5);

        CompactionCycle.Report r = cycle.runOnce(Instant.now().plusSeconds(1));
        assertEquals(1, r.passes().size(), r.toString());
        assertEquals(200 * 9, r.recordsRemoved(), r.toString());
        StorageInvariants.assertHold(ds);

        List<JsonNode> popped = popAll(queue, "fresh");
        Map<String, Integer> latest = latestByKey(popped);
        assertEquals(200, latest.size());
        latest.forEach((k, u) -> assertEquals(9, u, k));
        for (JsonNode m : popped) {
            if (!m.get("key").isNull()) {
                assertEquals("key-" + m.get("data").get("k").asInt(), m.get("key").asText());
            }
        }
        TreeSet<Integer> plain = new TreeSet<>();
        popped.stream().filter(m -> m.get("data").has("plain")).forEach(m -> plain.add(m.get("data").get("plain")
                .asInt()));
        assertEquals(50, plain.size(), "every unkeyed message stays");
        assertEquals(49, plain.last());
        assertEquals(1, popped.stream().filter(m -> m.get("data").has("head")).count());
        assertEquals(200 + 50 + 1, popped.size());

        // a Kafka consumer reads the key of an HTTP message as the record key, the payload as the value
        List<ConsumerRecord<byte[], byte[]>> records = kafkaRead(queue);
        assertEquals(popped.size(), records.size());
        Map<String, String> byKey = new HashMap<>();
        records.stream().filter(x -> x.key() != null).forEach(x -> byKey.put(text(x.key()), text(x.value())));
        assertEquals(200, byKey.size());
        assertEquals("{\"k\":7,\"u\":9}", byKey.get("key-7"));
        assertEquals(51, records.stream().filter(x -> x.key() == null).count());
    }

    @Test
    void aKeyedNullPayloadIsATombstoneThatGoesAfterDeleteRetention() throws Exception {
        String queue = "http-tombstones";
        compacted(queue, "{}", ",\"minCleanableDirtyRatio\":\"0.01\"");
        ArrayNode first = Api.M.createArrayNode();
        item(first, queue, "a").put("payload", "a1");
        item(first, queue, "b").put("payload", "b1");
        pushed(first);
        ArrayNode second = Api.M.createArrayNode();
        item(second, queue, "a").putNull("payload");
        item(second, queue, null).putNull("payload");
        pushed(second);
        head(queue, "h1");
        Instant now = Instant.now();
        assertEquals(1, cycle.runOnce(now.plusSeconds(1)).recordsRemoved(), "a1: a has a later record");

        // within delete.retention.ms (24 h by default) the tombstone stays, read by Kafka with a null value
        List<JsonNode> popped = popAll(queue, "g1");
        assertEquals(List.of("b=\"b1\"", "a=null", "null=null", "null={\"head\":\"h1\"}"),
                popped.stream().map(m -> m.get("key").asText(null) + "=" + m.get("data")).toList());
        assertEquals(List.of("b=\"b1\"", "a=(tombstone)", "null=null", "null={\"head\":\"h1\"}"),
                kafkaRead(queue).stream().map(x -> text(x.key()) + "=" + (x.value() == null ? "(tombstone)"
                        : text(x.value()))).toList(),
                "the tombstone's value is null; an unkeyed null payload stays the JSON null");

        head(queue, "h2");
        CompactionCycle.Report later = cycle.runOnce(now.plus(Duration.ofHours(25)));
        assertEquals(1, later.recordsRemoved(), later.toString());
        assertEquals(List.of("b=\"b1\"", "null=null", "null={\"head\":\"h1\"}", "null={\"head\":\"h2\"}"),
                popAll(queue, "g2").stream().map(m -> m.get("key").asText(null) + "=" + m.get("data")).toList(),
                "the tombstone went; the unkeyed null payload is no tombstone and stays");
        StorageInvariants.assertHold(ds);
    }

    @Test
    void anInvalidKeyIsA400NamingTheFieldAndWritesNothing() {
        String queue = "http-bad-keys";
        for (String bad : new String[] {"5", "\"\"", "{}", "true", "[\"a\"]", "\"\\ud800\"",
                "\"" + "é".repeat(2049) + "\""}) {
            Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"" + queue + "\",\"payload\":1},"
                    + "{\"queue\":\"" + queue + "\",\"key\":" + bad + ",\"payload\":2}]}");
            assertEquals(400, r.status(), bad + ": " + r.body());
            assertTrue(r.body().contains("key must be a non-empty string of at most 4096 UTF-8 bytes (items[1].key)"),
                    r.body());
        }
        Http.Reply tx = Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\""
                + queue + "\",\"key\":7,\"payload\":1}]}]}");
        assertEquals(400, tx.status(), tx.body());
        assertTrue(tx.body().contains("(items[0].key)"), tx.body());
        assertNull(Api.pop("/api/v1/pop/queue/" + queue + "?wait=false"), "nothing was written");

        // the limits themselves are accepted: 4,096 UTF-8 bytes (2,048 two-byte characters), a null key
        ArrayNode ok = Api.M.createArrayNode();
        item(ok, queue, "é".repeat(2048)).put("payload", 1);
        item(ok, queue, null).putNull("key");
        pushed(ok);
        List<JsonNode> popped = Api.messages(Api.pop("/api/v1/pop/queue/" + queue + "?batch=10&wait=false"));
        assertEquals("é".repeat(2048), popped.get(0).get("key").asText());
        assertTrue(popped.get(1).get("key").isNull());
    }

    @Test
    void popTheMessageViewsAndTheTransactionRouteCarryTheKey() throws Exception {
        String queue = "http-key-views";
        Http.Reply tx = Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":["
                + "{\"queue\":\"" + queue + "\",\"partition\":\"0\",\"transactionId\":\"t-keyed\",\"key\":\"order-1\","
                + "\"payload\":{\"n\":1}},"
                + "{\"queue\":\"" + queue + "\",\"partition\":\"0\",\"transactionId\":\"t-plain\",\"payload\":2}]}]}");
        assertEquals(200, tx.status(), tx.body());
        assertTrue(Api.json(tx.body()).get("success").asBoolean(), tx.body());
        // a Kafka record's key, UTF-8 or not, in the encoding of the record envelope's kafka.key
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            p.send(new ProducerRecord<>(queue, 0, "kk".getBytes(StandardCharsets.UTF_8), "v".getBytes())).get();
            p.send(new ProducerRecord<>(queue, 0, new byte[] {(byte) 0xFF}, "w".getBytes())).get();
        }

        JsonNode popped = Api.pop("/api/v1/pop/queue/" + queue + "/partition/0?batch=10&wait=false");
        List<JsonNode> ms = Api.messages(popped);
        assertEquals(List.of("\"order-1\"", "null", "\"kk\"", "{\"base64\":\"/w==\"}"),
                ms.stream().map(m -> m.get("key").toString()).toList());

        String pid = popped.get("partitionId").asText();
        JsonNode one = Api.json(Http.get("/api/v1/messages/" + pid + "/t-keyed").body());
        assertEquals("order-1", one.get("key").asText());
        assertEquals(1, one.get("data").get("n").asInt());
        assertTrue(Api.json(Http.get("/api/v1/messages/" + pid + "/t-plain").body()).get("key").isNull());
        JsonNode kafka = Api.json(Http.get("/api/v1/messages/" + pid + "/" + ms.get(3).get("transactionId").asText())
                .body());
        assertEquals("/w==", kafka.get("key").get("base64").asText());

        JsonNode list = Api.json(Http.get("/api/v1/messages?queue=" + queue).body()).get("messages");
        List<String> listed = new ArrayList<>();
        list.forEach(m -> listed.add(m.get("key").toString()));
        assertEquals(List.of("{\"base64\":\"/w==\"}", "\"kk\"", "null", "\"order-1\""), listed, "newest first");

        JsonNode fetched = Api.json(Http.post("/api/v1/fetch", "{\"entries\":[{\"queue\":\"" + queue
                + "\",\"partition\":\"0\",\"offset\":0,\"maxBytes\":65536}]}").body());
        assertEquals("order-1", fetched.get("entries").get(0).get("records").get(0).get("key").asText());
    }

    @Test
    void aDeadLetterKeepsTheKeyAndItsReplayWritesItBack() throws Exception {
        for (String queue : new String[] {"http-key-dlq", "http-key-dlq-enc"}) {
            Api.configure(queue, "{\"encryptionEnabled\":" + queue.endsWith("enc") + "}");
            ArrayNode items = Api.M.createArrayNode();
            item(items, queue, "dead-key").putObject("payload").put("n", 1);
            item(items, queue, null).putObject("payload").put("n", 2);
            pushed(items);
            for (int i = 0; i < 2; i++) {
                Api.ackAll(Api.pop("/api/v1/pop/queue/" + queue + "/partition/0?batch=1&wait=false"), "dlq", null);
            }
            JsonNode letters = Api.json(Http.get("/api/v1/dlq?queue=" + queue).body()).get("messages");
            assertEquals(2, letters.size(), letters.toString());
            for (JsonNode letter : letters) {
                Http.Reply r = Http.post("/api/v1/dlq/" + letter.get("id").asText() + "/replay", "");
                assertEquals(200, r.status(), r.body());
            }
            Map<Integer, String> keys = new HashMap<>();
            Api.messages(Api.pop("/api/v1/pop/queue/" + queue + "/partition/0?batch=10&wait=false"))
                    .forEach(m -> keys.put(m.get("data").get("n").asInt(), m.get("key").asText(null)));
            Map<Integer, String> want = new HashMap<>();
            want.put(1, "dead-key");
            want.put(2, null);
            assertEquals(want, keys, queue);
        }
    }

    @Test
    void anEncryptedQueueStoresTheKeyEncryptedAndStillCompactsByIt() throws Exception {
        String queue = "http-keys-enc";
        compacted(queue, "{\"encryptionEnabled\":true}", "");
        keysAndUpdates(queue, "s3cret-key-", 20, 3, 1);

        List<List<Object>> blobs = Sql.rows(ds, "SELECT s.blob FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + queue + "'");
        assertEquals(4, blobs.size());
        for (List<Object> row : blobs) {
            byte[] blob = (byte[]) row.get(0);
            String raw = new String(Zstd.decompress(blob, (int) Zstd.getFrameContentSize(blob)),
                    StandardCharsets.ISO_8859_1);
            assertFalse(raw.contains("s3cret-key"), "a key is ciphertext at rest");
            assertFalse(raw.contains("\"u\""), "a payload is ciphertext at rest");
        }

        CompactionCycle.Report r = cycle.runOnce(Instant.now().plusSeconds(1));
        assertEquals(20 * 2, r.recordsRemoved(), r.toString());
        Map<String, Integer> latest = latestByKey(popAll(queue, "fresh"));
        assertEquals(20, latest.size());
        latest.forEach((k, u) -> assertEquals(2, u, k));
        assertTrue(latest.containsKey("s3cret-key-0"), "the key is decrypted for readers");
        assertEquals("s3cret-key-0", kafkaRead(queue).stream().filter(x -> x.key() != null).map(x -> text(x.key()))
                .sorted().findFirst().orElseThrow(), "and for Kafka consumers");
        StorageInvariants.assertHold(ds);
    }
}
