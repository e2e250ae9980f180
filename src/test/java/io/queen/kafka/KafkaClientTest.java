package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.envelope.KafkaRecordFormat;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.testing.Api;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.queen.testing.FreshDatabase;
import io.queen.testing.StorageInvariants;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The Java {@code kafka-clients} producer, consumer and admin client against the listener, with their default
 * settings (the producer is idempotent by default): values, keys, headers and timestamps come back byte-identical
 * and in order per partition, whatever the codec; an HTTP push is fetched by a Kafka consumer and a Kafka record
 * is popped over HTTP with its key, headers and timestamp.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaClientTest extends KafkaListenerClients {
    @Inject
    AgroalDataSource ds;



    KafkaProducer<byte[], byte[]> producer(String compression) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Everything in the topic's partitions from the beginning, until {@code expected} records arrived. */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions, int expected) {
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (out.size() < expected && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(500)).forEach(out::add);
            }
            assertEquals(expected, out.size(), "records read back");
            return out;
        }
    }

    @Test
    void recordsRoundTripByteIdenticalWithEveryCodec() throws Exception {
        String topic = "roundtrip";
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
        long ts = 1_700_000_000_000L;
        int n = 0;
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            try (KafkaProducer<byte[], byte[]> p = producer(codec)) {
                for (int i = 0; i < 40; i++, n++) {
                    byte[] value = switch (i % 5) {
                        case 0 -> ("{\"n\": " + n + ", \"codec\": \"" + codec + "\"}").getBytes(StandardCharsets.UTF_8);
                        case 1 -> new byte[] {(byte) 0xff, 0, (byte) n, (byte) 0xc3};  // not UTF-8
                        case 2 -> ("plain text " + n).getBytes(StandardCharsets.UTF_8);
                        case 3 -> " [1, 2]\n".getBytes(StandardCharsets.UTF_8);  // JSON with spaces around
                        default -> null;  // a tombstone
                    };
                    byte[] key = i % 4 == 0 ? null : ("k" + n).getBytes(StandardCharsets.UTF_8);
                    List<Header> headers = i % 3 == 0 ? List.of()
                            : List.of(new RecordHeader("h", ("v" + n).getBytes(StandardCharsets.UTF_8)),
                                    new RecordHeader("bin", new byte[] {(byte) 0x80, 1}),
                                    new RecordHeader("nul", (byte[]) null));
                    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, n % 3, ts + n, key, value, headers);
                    sent.add(r);
                    p.send(r);
                }
                p.flush();
            }
        }
        List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 3, sent.size());
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : got) {
            byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
        }
        for (int part = 0; part < 3; part++) {
            List<ProducerRecord<byte[], byte[]>> expected = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> s : sent) {
                if (s.partition() == part) {
                    expected.add(s);
                }
            }
            List<ConsumerRecord<byte[], byte[]>> actual = byPartition.get(part);
            assertEquals(expected.size(), actual.size());
            for (int i = 0; i < expected.size(); i++) {
                ProducerRecord<byte[], byte[]> s = expected.get(i);
                ConsumerRecord<byte[], byte[]> r = actual.get(i);
                assertEquals(i, r.offset(), "offsets count from 0 per partition, in produce order");
                assertArrayEquals(s.value(), r.value(), "value of record " + i + " of partition " + part);
                assertArrayEquals(s.key(), r.key());
                assertEquals(s.timestamp(), r.timestamp());
                Header[] sh = s.headers().toArray();
                Header[] rh = r.headers().toArray();
                assertEquals(sh.length, rh.length);
                for (int h = 0; h < sh.length; h++) {
                    assertEquals(sh[h].key(), rh[h].key());
                    assertArrayEquals(sh[h].value(), rh[h].value());
                }
            }
        }
    }

    @Test
    void aBatchOverTheBatchLimitIsRefusedAndTheProducerGoesOn() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20);   // the client would send it; the broker refuses it
        // the tests' limits (KafkaEnabled): batches up to 256 KiB, frames up to 1 MiB
        byte[] big = new byte[400 << 10];
        new java.util.Random(7).nextBytes(big);   // incompressible: the batch stays over 256 KiB
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("large", 0, null, big)).get(60, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof org.apache.kafka.common.errors.RecordTooLargeException,
                    String.valueOf(refused.getCause()));
            RecordMetadata small = producer.send(new ProducerRecord<>("large", 0, null,
                    "{\"small\": true}".getBytes(StandardCharsets.UTF_8))).get(60, TimeUnit.SECONDS);
            assertEquals(0, small.offset(), "nothing of the refused batch was written");
        }
    }

    @Test
    void adminCreatesDescribesAndDeletesTopics() throws Exception {
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic("admin-a", 4, (short) 1),
                    new NewTopic("admin-b", java.util.Optional.empty(), java.util.Optional.empty())))
                    .all().get(30, TimeUnit.SECONDS);
            ExecutionException dup = assertThrows(ExecutionException.class, () -> a.createTopics(
                    List.of(new NewTopic("admin-a", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
            assertTrue(dup.getCause() instanceof TopicExistsException, dup.toString());
            Set<String> names = a.listTopics().names().get(30, TimeUnit.SECONDS);
            assertTrue(names.containsAll(Set.of("admin-a", "admin-b")), names.toString());
            Map<String, TopicDescription> d = a.describeTopics(List.of("admin-a", "admin-b")).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            assertEquals(4, d.get("admin-a").partitions().size());
            assertEquals(3, d.get("admin-b").partitions().size(), "the default partition count");
            assertEquals(300, dedupWindowSeconds("admin-a"), "a topic's dedup window: queen.kafka.dedup-window-seconds");
            a.deleteTopics(List.of("admin-a")).all().get(30, TimeUnit.SECONDS);
            assertFalse(a.listTopics().names().get(30, TimeUnit.SECONDS).contains("admin-a"));
            ExecutionException gone = assertThrows(ExecutionException.class,
                    () -> a.deleteTopics(List.of("admin-a")).all().get(30, TimeUnit.SECONDS));
            assertTrue(gone.getCause() instanceof UnknownTopicOrPartitionException, gone.toString());
        }
        // the queue went with the topic
        assertEquals(404, io.queen.testing.Http.get("/api/v1/resources/queues/admin-a").status());
    }

    @Test
    void retentionMsIsTheQueuesRetention() throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "retained");
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic("retained", 1, (short) 1).configs(Map.of("retention.ms", "60000"))))
                    .all().get(30, TimeUnit.SECONDS);
            assertEquals("60000", a.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic)
                    .get("retention.ms").value());
            a.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms",
                    "7200000"), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
            assertEquals("7200000", a.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic)
                    .get("retention.ms").value());
            ExecutionException refused = assertThrows(ExecutionException.class, () -> a.incrementalAlterConfigs(
                    Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("segment.bytes", "1"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof InvalidConfigurationException, refused.toString());
        }
        JsonNode queue = Api.json(io.queen.testing.Http.get("/api/v1/resources/queues/retained").body());
        assertTrue(queue.toString().contains("7200"), queue.toString());
    }

    @Test
    void anHttpPushIsFetchedAndAKafkaRecordIsPoppedOverHttp() throws Exception {
        Api.pushN("interop", "0", "http", 0, 3);
        List<ConsumerRecord<byte[], byte[]>> got = readAll("interop", 1, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(i, Api.json(new String(got.get(i).value(), StandardCharsets.UTF_8)).get("n").asInt());
            assertNull(got.get(i).key());
        }
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            RecordMetadata m = p.send(new ProducerRecord<>("kafka-to-http", 0, 1_690_000_000_000L,
                    "key-1".getBytes(StandardCharsets.UTF_8), "{\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8),
                    List.of(new RecordHeader("trace", "t-1".getBytes(StandardCharsets.UTF_8))))).get();
            assertEquals(0, m.offset());
            p.send(new ProducerRecord<>("kafka-to-http", 0, 1_690_000_000_001L, null, new byte[] {1, 2, (byte) 0xff}))
                    .get();
        }
        List<JsonNode> msgs = Api.messages(Api.pop("/api/v1/pop/queue/kafka-to-http/partition/0?batch=10"));
        assertEquals(2, msgs.size());
        JsonNode first = msgs.get(0).get("data");
        assertEquals(Api.json("{\"a\":[1,2]}"), first.get("value"), "a JSON value is JSON");
        assertEquals("key-1", first.get("kafka").get("key").asText());
        assertEquals(1_690_000_000_000L, first.get("kafka").get("timestamp").asLong());
        assertEquals("trace", first.get("kafka").get("headers").get(0).get("key").asText());
        assertEquals("t-1", first.get("kafka").get("headers").get(0).get("value").asText());
        JsonNode second = msgs.get(1).get("data");
        assertEquals(Base64.getEncoder().encodeToString(new byte[] {1, 2, (byte) 0xff}),
                second.get("value").get("base64").asText(), "other bytes are base64");
    }

    @Test
    void aRecordIsStoredInBinaryFormAndHttpReadersGetItsJsonEnvelopeUpToTheDeadLetter() throws Exception {
        byte[] key = {(byte) 0xff, 1};
        byte[] value = {0, (byte) 0xc3, 0x28};
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            p.send(new ProducerRecord<>("kafka-binary", 0, 1_690_000_000_002L, key, value,
                    List.of(new RecordHeader("bin", new byte[] {(byte) 0xff}), new RecordHeader("none", null)))).get();
        }
        // stored as the record's bytes (frame flag 8), not as a JSON document
        byte[] blob = (byte[]) Sql.rows(ds, "SELECT s.blob FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'kafka-binary'")
                .get(0).get(0);
        Frame stored = SegmentCodec.decode(blob).get(0);
        assertTrue(stored.kafkaRecord());
        assertArrayEquals(KafkaRecordFormat.encode(1_690_000_000_002L, ByteBuffer.wrap(key), ByteBuffer.wrap(value),
                new Header[] {new RecordHeader("bin", new byte[] {(byte) 0xff}), new RecordHeader("none", null)}),
                stored.payload());
        String b64 = Base64.getEncoder().encodeToString(value);
        // a Kafka consumer gets the bytes back
        ConsumerRecord<byte[], byte[]> back = readAll("kafka-binary", 1, 1).get(0);
        assertArrayEquals(value, back.value());
        assertArrayEquals(key, back.key());
        assertNull(back.headers().lastHeader("none").value());
        // HTTP fetch, the message list and the pop show the JSON envelope
        JsonNode fetched = Api.json(Http.post("/api/v1/fetch", "{\"entries\":[{\"queue\":\"kafka-binary\","
                + "\"partition\":\"0\",\"offset\":0}]}").body()).findValue("records").get(0).get("payload");
        assertEquals(b64, fetched.get("value").get("base64").asText());
        assertEquals(Base64.getEncoder().encodeToString(key), fetched.get("kafka").get("key").get("base64").asText());
        assertEquals(1_690_000_000_002L, fetched.get("kafka").get("timestamp").asLong());
        assertTrue(fetched.get("kafka").get("headers").get(1).get("value").isNull());
        JsonNode listed = Api.json(Http.get("/api/v1/messages?queue=kafka-binary").body()).get("messages").get(0);
        assertEquals("bin", listed.get("kafka").get("headers").get(0).get("key").asText());
        Api.configure("kafka-binary", "{\"retryLimit\":0}");
        JsonNode popped = Api.pop("/api/v1/pop/queue/kafka-binary/partition/0?batch=1");
        assertEquals(fetched, Api.messages(popped).get(0).get("data"));
        // a dead letter is a JSON snapshot: the envelope
        Api.ackAll(popped, "failed", null);
        JsonNode dead = Api.json(Http.get("/api/v1/dlq?queue=kafka-binary").body()).get("messages").get(0);
        assertEquals(fetched, dead.get("data"));
    }

    /** One raw Fetch (v12) of partition 0 of {@code topic} from {@code offset}, bounded to {@code maxBytes}. */
    MemoryRecords fetch(String topic, long offset, int maxBytes) throws Exception {
        try (java.net.Socket s = KafkaFrames.connect(listener.port())) {
            FetchRequestData req = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
                    .setMaxBytes(maxBytes);
            req.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                            .setPartitionMaxBytes(maxBytes))));
            FetchResponseData out = KafkaFrames.call(s, ApiKeys.FETCH, (short) 12, 7, req);
            return (MemoryRecords) out.responses().get(0).partitions().get(0).records();
        }
    }

    @Test
    void aFetchIsCutAtARecordWithinItsByteBoundAndHoldsAtLeastOne() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            for (int i = 0; i < 10; i++) {
                byte[] v = new byte[300];
                v[0] = (byte) i;
                p.send(new ProducerRecord<>("fetch-bounds", 0, null, v));
            }
            p.flush();
        }
        MemoryRecords bounded = fetch("fetch-bounds", 0, 1000);
        List<org.apache.kafka.common.record.internal.Record> got = new ArrayList<>();
        bounded.records().forEach(got::add);
        assertTrue(bounded.sizeInBytes() <= 1000, bounded.sizeInBytes() + " bytes");
        assertTrue(bounded.sizeInBytes() + 300 > 1000, "cut before the record that would pass the bound");
        for (int i = 0; i < got.size(); i++) {
            assertEquals(i, got.get(i).offset());
            assertEquals(i, got.get(i).value().get(0));
        }
        MemoryRecords one = fetch("fetch-bounds", 2, 10);
        List<org.apache.kafka.common.record.internal.Record> first = new ArrayList<>();
        one.records().forEach(first::add);
        assertEquals(1, first.size(), "a bound below one record still gives one");
        assertEquals(2, first.get(0).offset());
        List<Long> rest = new ArrayList<>();
        fetch("fetch-bounds", 4, 1 << 20).records().forEach(r -> rest.add(r.offset()));
        assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), rest);
    }

    @Test
    void listOffsetsAnswersEarliestLatestAndByTime() throws Exception {
        long before = System.currentTimeMillis() - 1000;
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>("offsets", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
        }
        TopicPartition tp = new TopicPartition("offsets", 0);
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            assertEquals(0L, c.beginningOffsets(List.of(tp)).get(tp));
            assertEquals(5L, c.endOffsets(List.of(tp)).get(tp));
            Map<TopicPartition, OffsetAndTimestamp> at = c.offsetsForTimes(Map.of(tp, before));
            assertEquals(0L, at.get(tp).offset());
            Map<TopicPartition, OffsetAndTimestamp> future = c.offsetsForTimes(
                    Map.of(tp, System.currentTimeMillis() + 3_600_000));
            assertNull(future.get(tp));
        }
    }

    @Test
    void aProduceToAnUnknownTopicCreatesItWithTheDefaultPartitions() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            assertEquals(3, p.partitionsFor("auto-created").size());
            RecordMetadata m = p.send(new ProducerRecord<>("auto-created", 2, null, new byte[] {7})).get();
            assertEquals(2, m.partition());
            assertEquals(0, m.offset());
        }
        assertEquals(300, dedupWindowSeconds("auto-created"));
    }

    /** The queue's dedupWindowSeconds as the HTTP API shows it. */
    private static int dedupWindowSeconds(String queue) {
        JsonNode q = Api.json(io.queen.testing.Http.get("/api/v1/resources/queues/" + queue).body());
        JsonNode w = q.findValue("dedupWindowSeconds");
        assertTrue(w != null && w.isInt(), q.toString());
        return w.asInt();
    }

    /**
     * A compacted topic (what Kafka Streams creates for a store's changelog) is created and describes its policy
     * back; Queen compacts nothing, so every record of a key stays readable. A policy other than delete and
     * compact is refused.
     */
    @Test
    void compactedTopicsAreCreatedDescribedAndKeepEveryRecord() throws Exception {
        ConfigResource compacted = new ConfigResource(ConfigResource.Type.TOPIC, "changelog");
        ConfigResource both = new ConfigResource(ConfigResource.Type.TOPIC, "windowed-changelog");
        ConfigResource plain = new ConfigResource(ConfigResource.Type.TOPIC, "plain");
        try (Admin a = admin()) {
            a.createTopics(List.of(
                    new NewTopic("changelog", 2, (short) 1).configs(Map.of("cleanup.policy", "compact")),
                    new NewTopic("windowed-changelog", 1, (short) 1).configs(Map.of("cleanup.policy",
                            "delete, compact", "retention.ms", "86400000")),
                    new NewTopic("plain", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Map<ConfigResource, Config> d = a.describeConfigs(List.of(compacted, both, plain)).all()
                    .get(30, TimeUnit.SECONDS);
            assertEquals("compact", d.get(compacted).get("cleanup.policy").value());
            assertEquals("-1", d.get(compacted).get("retention.ms").value());
            assertEquals("-1", d.get(compacted).get("retention.bytes").value(), "no size-based retention");
            assertEquals("compact,delete", d.get(both).get("cleanup.policy").value());
            assertEquals("86400000", d.get(both).get("retention.ms").value());
            assertEquals("delete", d.get(plain).get("cleanup.policy").value());
            ExecutionException refused = assertThrows(ExecutionException.class, () -> a.createTopics(List.of(
                    new NewTopic("shrunk", 1, (short) 1).configs(Map.of("cleanup.policy", "shrink"))))
                    .all().get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof InvalidConfigurationException, refused.toString());
            assertFalse(a.listTopics().names().get(30, TimeUnit.SECONDS).contains("shrunk"));
        }
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            for (int i = 0; i < 3; i++) {
                p.send(new ProducerRecord<>("changelog", 1, "same-key".getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
        }
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TopicPartition tp = new TopicPartition("changelog", 1);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 3 && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
            assertEquals(List.of("v0", "v1", "v2"), values, "every record of the key, none compacted away");
        }
    }

    /**
     * DeleteRecords moves the partition's log start (as retention does, by whole segments): the low watermark
     * it answers is the earliest offset consumers are given afterwards, and the storage invariants hold. An
     * offset beyond the high watermark is refused (OFFSET_OUT_OF_RANGE).
     */
    @Test
    void deleteRecordsMovesThePartitionsLogStart() throws Exception {
        TopicPartition tp = new TopicPartition("purged", 0);
        TopicPartition unwritten = new TopicPartition("purged", 1);
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic("purged", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> p = producer("none")) {
                for (int i = 0; i < 10; i++) {
                    // one request at a time: each is a segment of its own
                    p.send(new ProducerRecord<>("purged", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get(30, TimeUnit.SECONDS);
                }
            }
            Map<TopicPartition, KafkaFuture<DeletedRecords>> deleted = a.deleteRecords(Map.of(
                    tp, RecordsToDelete.beforeOffset(6), unwritten, RecordsToDelete.beforeOffset(0)))
                    .lowWatermarks();
            long low = deleted.get(tp).get(30, TimeUnit.SECONDS).lowWatermark();
            assertTrue(low > 0 && low <= 6, "low watermark " + low);
            assertEquals(0L, deleted.get(unwritten).get(30, TimeUnit.SECONDS).lowWatermark());
            try (KafkaConsumer<byte[], byte[]> c = consumer()) {
                assertEquals(low, c.beginningOffsets(List.of(tp)).get(tp));
                assertEquals(10L, c.endOffsets(List.of(tp)).get(tp));
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                List<String> values = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (values.size() < 10 - low && System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
                }
                assertEquals("v" + low, values.get(0), "the first record left is the new log start");
                assertEquals(10 - low, values.size());
            }
            // again up to the high watermark: nothing left, log start = high watermark
            assertEquals(10L, a.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1))).lowWatermarks()
                    .get(tp).get(30, TimeUnit.SECONDS).lowWatermark());
            ExecutionException beyond = assertThrows(ExecutionException.class, () -> a.deleteRecords(Map.of(
                    tp, RecordsToDelete.beforeOffset(11))).all().get(30, TimeUnit.SECONDS));
            assertTrue(beyond.getCause() instanceof OffsetOutOfRangeException, beyond.toString());
        }
        // writes after a purge go on from the high watermark
        try (KafkaProducer<byte[], byte[]> p = producer("none")) {
            assertEquals(10L, p.send(new ProducerRecord<>("purged", 0, null, new byte[] {1})).get().offset());
        }
        StorageInvariants.assertHold(ds);
    }
}
