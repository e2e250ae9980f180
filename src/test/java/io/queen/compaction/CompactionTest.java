package io.queen.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.Api;
import io.queen.testing.Command;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Compaction seen through the Java client: a compacted topic keeps the latest record of every key at its offset,
 * fetching a removed offset returns the next kept record, tombstones go after delete.retention.ms, a Kafka group and
 * an HTTP group read on across a compaction, producing while compaction runs loses and duplicates nothing, and the
 * storage invariants (the compaction one included) hold. Cycles run through {@link CompactionCycle#runOnce} with an
 * explicit instant, never on a timer.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class CompactionTest extends KafkaListenerClients {
    private static final Logger LOG = Logger.getLogger(CompactionTest.class);

    @Inject
    CompactionCycle cycle;

    @Inject
    CompactionStore store;

    @Inject
    AgroalDataSource ds;

    private void createCompacted(String topic, Map<String, String> configs) throws Exception {
        Map<String, String> all = new HashMap<>(configs);
        all.put("cleanup.policy", "compact");
        createTopicsAt(bootstrap(), new NewTopic(topic, 1, (short) 1).configs(all));
    }

    private KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private KafkaConsumer<String, String> consumer(String group) {
        return new KafkaConsumer<>(consumerProperties(bootstrap(), group), new StringDeserializer(),
                new StringDeserializer());
    }

    /** Every record of partition 0 from {@code from} to the end offset, in order. */
    private List<ConsumerRecord<String, String>> read(String topic, long from) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> c = consumer(null)) {
            c.assign(List.of(tp));
            c.seek(tp, from);
            long end = c.endOffsets(List.of(tp)).get(tp);
            List<ConsumerRecord<String, String>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(tp) < end) {
                assertTrue(System.nanoTime() < deadline, "reading " + topic + " to " + end + " stalled at "
                        + c.position(tp));
                c.poll(Duration.ofMillis(100)).forEach(out::add);
            }
            return out;
        }
    }

    /** The first record a fetch at {@code offset} returns, or null when there is none before the end. */
    private ConsumerRecord<String, String> firstFrom(String topic, long offset) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> c = consumer(null)) {
            c.assign(List.of(tp));
            c.seek(tp, offset);
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    return r;
                }
            }
            return null;
        }
    }

    private long segmentBytes(String topic) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COALESCE(sum(octet_length(s.blob)), 0), count(*)"
                        + " FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = ?")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                LOG.infof("%s: %d segment rows, %d blob bytes", topic, rs.getLong(2), rs.getLong(1));
                return rs.getLong(1);
            }
        }
    }

    private String segments(String topic) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT string_agg(format('[%s,%s] %s', s.base_offset,"
                        + " s.end_offset, s.created_at), ', ' ORDER BY s.base_offset)"
                        + " FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = ?")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** Latest value per key in {@code records}, and the offsets of those latest records. */
    private static Map<String, ConsumerRecord<String, String>> latest(List<ConsumerRecord<String, String>> records) {
        Map<String, ConsumerRecord<String, String>> out = new TreeMap<>();
        records.forEach(r -> out.put(r.key(), r));
        return out;
    }

    private List<JsonNode> popAll(String topic, String group) {
        List<JsonNode> out = new ArrayList<>();
        while (true) {
            JsonNode p = Api.pop("/api/v1/pop/queue/" + topic + "/partition/0?batch=5000&wait=false&consumerGroup="
                    + group);
            if (p == null) {
                return out;
            }
            out.addAll(Api.messages(p));
            if (!Api.messages(p).isEmpty()) {
                Api.ackAll(p, "completed", group);
            }
        }
    }

    @Test
    void aCompactedTopicKeepsTheLatestRecordOfEveryKeyAtItsOffset() throws Exception {
        String topic = "compact-keys";
        createCompacted(topic, Map.of());
        int keys = 1000;
        int updates = 100;
        try (KafkaProducer<String, String> p = producer()) {
            for (int u = 0; u < updates; u++) {
                for (int k = 0; k < keys; k++) {
                    p.send(new ProducerRecord<>(topic, 0, "key-" + k, "value-" + k + "-" + u));
                }
            }
            p.flush();
        }
        List<ConsumerRecord<String, String>> before = read(topic, 0);
        assertEquals(keys * updates, before.size());
        // a Kafka group and an HTTP group read part of the log before compaction
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> g = consumer("kafka-group")) {
            g.commitSync(Map.of(tp, new OffsetAndMetadata(12_345)));
        }
        JsonNode httpFirst = Api.pop("/api/v1/pop/queue/" + topic + "/partition/0?batch=777&consumerGroup=http-group");
        assertEquals(777, Api.messages(httpFirst).size());
        Api.ackAll(httpFirst, "completed", "http-group");

        long bytesBefore = segmentBytes(topic);
        double removedBefore = Api.metric("queen_compaction_records_removed_total");
        long t0 = System.nanoTime();
        long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        CompactionCycle.Report r = cycle.runOnce(Instant.now().plusSeconds(1));
        LOG.infof("compaction cycle: %s in %d ms, %d ms CPU of this thread", r, (System.nanoTime() - t0) / 1_000_000,
                (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0) / 1_000_000);
        long bytesAfter = segmentBytes(topic);
        assertEquals(removedBefore + r.recordsRemoved(), Api.metric("queen_compaction_records_removed_total"));
        assertTrue(Api.metric("queen_compaction_bytes_removed_total") >= bytesBefore - bytesAfter);
        // the queue's largest dirty ratio as the cycle listed it, before it compacted: all but the head was dirty
        assertTrue(Api.metric("queen_compaction_dirty_ratio{queue=\"" + topic + "\"}") > 0.9);
        assertEquals(1, r.passes().size(), r.toString());
        // every record read but the latest of each key went (the head, the last segment, is not read)
        assertEquals(r.passes().get(0).recordsRead() - keys, r.recordsRemoved(), r.toString());
        assertTrue(bytesAfter * 10 < bytesBefore, bytesBefore + " -> " + bytesAfter);
        StorageInvariants.assertHold(ds);

        // a fresh consumer sees the latest value of every key, plus at most the head's older ones
        List<ConsumerRecord<String, String>> after = read(topic, 0);
        Map<String, ConsumerRecord<String, String>> want = latest(before);
        Map<String, ConsumerRecord<String, String>> got = latest(after);
        assertEquals(keys, got.size());
        for (Map.Entry<String, ConsumerRecord<String, String>> e : want.entrySet()) {
            assertEquals(e.getValue().value(), got.get(e.getKey()).value(), e.getKey());
            assertEquals(e.getValue().offset(), got.get(e.getKey()).offset(), e.getKey());
        }
        // one record per key up to the compaction point, then the head as it was
        long head = keys * updates - 1 - r.passes().get(0).cleanedTo();
        assertEquals(keys + head, after.size(), head + " records in the head");
        Map<Long, ConsumerRecord<String, String>> byOffset = new TreeMap<>();
        before.forEach(x -> byOffset.put(x.offset(), x));
        long previous = -1;
        for (ConsumerRecord<String, String> x : after) {
            assertTrue(x.offset() > previous, "offsets ascend");
            previous = x.offset();
            assertEquals(byOffset.get(x.offset()).value(), x.value(), "offset " + x.offset() + " kept its record");
        }
        // a fetch at a kept offset returns that record; at a removed one, the next kept record
        ConsumerRecord<String, String> kept = after.get(after.size() / 2);
        assertEquals(kept.value(), firstFrom(topic, kept.offset()).value());
        long removed = 10;
        assertFalse(after.stream().anyMatch(x -> x.offset() == removed));
        ConsumerRecord<String, String> next = after.stream().filter(x -> x.offset() > removed).findFirst().get();
        assertEquals(next.offset(), firstFrom(topic, removed).offset());

        // the Kafka group goes on from its commit and ends with every key's latest value
        try (KafkaConsumer<String, String> g = consumer("kafka-group")) {
            g.assign(List.of(tp));
            assertEquals(12_345, g.position(tp));
            List<ConsumerRecord<String, String>> rest = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (g.position(tp) < keys * updates) {
                assertTrue(System.nanoTime() < deadline);
                g.poll(Duration.ofMillis(100)).forEach(rest::add);
            }
            assertEquals(after.stream().filter(x -> x.offset() >= 12_345).count(), rest.size());
        }
        // the HTTP group too: the kept records after its cursor, each once, in order
        List<JsonNode> httpRest = popAll(topic, "http-group");
        List<Long> offsets = httpRest.stream().map(m -> m.get("offset").asLong()).toList();
        assertEquals(after.stream().map(ConsumerRecord::offset).filter(o -> o >= 777).toList(), offsets);
        StorageInvariants.assertHold(ds);

        // nothing new: the next cycle finds nothing due, and lists the queue as clean
        assertEquals(0, cycle.runOnce(Instant.now().plusSeconds(2)).passes().size());
        assertEquals(0.0, Api.metric("queen_compaction_dirty_ratio{queue=\"" + topic + "\"}"));
    }

    /**
     * A tombstone stays {@code delete.retention.ms} (24 h by default) after the pass that first compacted it (its
     * delete horizon, as Apache Kafka's cleaner stamps one), however old its segment: a reader that saw the key's
     * older record before that pass still meets the tombstone.
     */
    @Test
    void tombstonesRemoveTheirKeyDeleteRetentionAfterTheirFirstPass() throws Exception {
        String topic = "compact-tombstones";
        createCompacted(topic, Map.of("min.cleanable.dirty.ratio", "0.01"));
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "a", "a1")).get();
            p.send(new ProducerRecord<>(topic, 0, "b", "b1")).get();
            p.send(new ProducerRecord<>(topic, 0, "a", null)).get();
            p.send(new ProducerRecord<>(topic, 0, null, "no key")).get();
            p.send(new ProducerRecord<>(topic, 0, "head", "h")).get();
        }
        Instant first = Instant.now().plus(Duration.ofHours(25));  // the tombstone's segment is 25 h old
        CompactionCycle.Report r = cycle.runOnce(first);
        assertEquals(List.of(topic), r.passes().stream().map(CompactionCycle.Compacted::queue).toList(), r.toString()
                + " " + segments(topic));
        // the first pass removes a's older record and keeps the tombstone: a reader learns that a went
        assertEquals(List.of("b=b1", "a=null", "null=no key", "head=h"), keysAndValues(read(topic, 0)));
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "c", "c1")).get();
            p.send(new ProducerRecord<>(topic, 0, "head", "h2")).get();
        }
        assertEquals(1, cycle.runOnce(first.plus(Duration.ofHours(23))).passes().size());
        // 23 h after its first pass the tombstone stays; head=h too: its later record is in the head segment, which
        // compaction does not read
        assertEquals(List.of("b=b1", "a=null", "null=no key", "head=h", "c=c1", "head=h2"),
                keysAndValues(read(topic, 0)));
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "d", "d1")).get();
            p.send(new ProducerRecord<>(topic, 0, "head", "h3")).get();
        }
        assertEquals(1, cycle.runOnce(first.plus(Duration.ofHours(24)).plusSeconds(1)).passes().size());
        assertEquals(List.of("b=b1", "null=no key", "c=c1", "head=h2", "d=d1", "head=h3"),
                keysAndValues(read(topic, 0)), "24 h after its first pass, the tombstone went");
        StorageInvariants.assertHold(ds);
    }

    private static List<String> keysAndValues(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(x -> x.key() + "=" + x.value()).toList();
    }

    @Test
    void librdkafkaClientsReadTheCompactedTopic() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/usr/lib/python3/dist-packages/confluent_kafka")),
                "python3-confluent-kafka is not installed (scripts/install-test-tools.sh)");
        String topic = "compact-rdkafka";
        createCompacted(topic, Map.of("delete.retention.ms", "0", "min.cleanable.dirty.ratio", "0.001"));
        // 200 keys x 20 updates, then tombstones for k0..k9, then (its own produce, so its own segment: the head)
        // one marker record, all through librdkafka (confluent-kafka for Python); a second marker after the first
        // pass, so a second pass removes the tombstones the first one kept
        Command produced = Command.run(null, List.of("/usr/bin/python3", "-c", """
                import sys
                from confluent_kafka import Producer
                b, t = sys.argv[1], sys.argv[2]
                p = Producer({'bootstrap.servers': b, 'enable.idempotence': True, 'linger.ms': 5})
                for u in range(20):
                    for k in range(200):
                        p.produce(t, key=b'k%d' % k, value=b'%d:%d' % (k, u), partition=0)
                for k in range(10):
                    p.produce(t, key=b'k%d' % k, value=None, partition=0)
                assert p.flush(60) == 0
                p.produce(t, key=b'marker', value=b'm', partition=0)
                assert p.flush(60) == 0
                """, bootstrap(), topic));
        assertEquals(0, produced.exit(), produced.out());
        assertEquals(200 * 19 + 10, cycle.runOnce(Instant.now().plusSeconds(1)).recordsRemoved(),
                "older values and k0..k9's last values; the tombstones stay for the first pass");
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "marker", "m2")).get();
        }
        assertEquals(10, cycle.runOnce(Instant.now().plusSeconds(2)).recordsRemoved(), "the tombstones");
        Command consumed = Command.run(null, List.of("/usr/bin/python3", "-c", """
                import sys
                from confluent_kafka import Consumer, TopicPartition
                b, t = sys.argv[1], sys.argv[2]
                c = Consumer({'bootstrap.servers': b, 'group.id': 'rdkafka-compacted', 'enable.auto.commit': False})
                lo, hi = c.get_watermark_offsets(TopicPartition(t, 0), timeout=30)
                c.assign([TopicPartition(t, 0, 0)])
                pos = 0
                while pos < hi:
                    m = c.poll(10)
                    assert m is not None, 'timed out at %d of %d' % (pos, hi)
                    assert m.error() is None, m.error()
                    print('%d %s %s' % (m.offset(), m.key().decode(), m.value().decode()))
                    pos = m.offset() + 1
                c.close()
                """, bootstrap(), topic));
        assertEquals(0, consumed.exit(), consumed.out());
        List<String> lines = consumed.out().lines().toList();
        List<String> expected = new ArrayList<>();
        for (int k = 10; k < 200; k++) {
            // the last update of k is its 20th record: offset 19 * 200 + k
            expected.add((19 * 200 + k) + " k" + k + " " + k + ":19");
        }
        expected.add((20 * 200 + 10) + " marker m");  // in the second pass, but the latest is in the head
        expected.add((20 * 200 + 11) + " marker m2");
        assertEquals(expected, lines, "the latest value of each live key at its offset, k0..k9 gone");
        StorageInvariants.assertHold(ds);
    }

    /** With {@code delete.retention.ms=0} a tombstone goes at the pass after the one that first kept it, as in Apache Kafka. */
    @Test
    void aTombstoneGoesAtTheNextPassWithDeleteRetentionZero() throws Exception {
        String topic = "compact-tombstones-now";
        createCompacted(topic, Map.of("delete.retention.ms", "0", "min.cleanable.dirty.ratio", "0.01"));
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "a", "a1")).get();
            p.send(new ProducerRecord<>(topic, 0, "a", null)).get();
            p.send(new ProducerRecord<>(topic, 0, "b", "b1")).get();
            p.send(new ProducerRecord<>(topic, 0, "head", "h")).get();
        }
        assertEquals(1, cycle.runOnce(Instant.now().plusSeconds(1)).recordsRemoved());
        assertEquals(List.of("a=null", "b=b1", "head=h"), keysAndValues(read(topic, 0)));
        try (KafkaProducer<String, String> p = producer()) {
            p.send(new ProducerRecord<>(topic, 0, "head", "h2")).get();
        }
        assertEquals(1, cycle.runOnce(Instant.now().plusSeconds(2)).recordsRemoved());
        assertEquals(List.of("b=b1", "head=h", "head=h2"), keysAndValues(read(topic, 0)));
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aPassWhoseSegmentsRetentionDeletedMeanwhileRollsBackWhole() throws Exception {
        String topic = "compact-vs-retention";
        createCompacted(topic, Map.of());
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get();
            }
        }
        Instant now = Instant.now().plusSeconds(1);
        CompactionStore.Partition part = store.partitions(now, new CompactionStore.Defaults(0, Long.MAX_VALUE,
                0, 0.5)).stream().filter(x -> x.queue().equals(topic)).findFirst().orElseThrow();
        String before = segments(topic);
        try (CompactionStore.Pass pass = store.open(part.partitionId())) {
            List<CompactionPass.Segment> read = pass.segments(part.logStart(), part.cleanableEnd(), 0, 1000);
            assertEquals(5, read.size());
            assertNull(store.open(part.partitionId()), "one pass per partition at a time");
            // a DeleteRecords (as a retention step) deletes the first segments between the read and the write
            try (Admin a = admin()) {
                a.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(2))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            CompactionPass.Result r = new CompactionPass(f -> f.payload(), f -> f.key(), 1 << 20, 3).run(read, 0, -1);
            assertEquals(4, r.recordsRemoved());
            java.sql.SQLException e = assertThrows(java.sql.SQLException.class,
                    () -> pass.write(r.rewrites(), read.get(read.size() - 1).endOffset(), r.recordsKept(), 4, 0,
                            now, -1, now));
            assertTrue(e.getMessage().contains("changed meanwhile"), e.getMessage());
        }
        // nothing of the pass was written; the invariants hold, and the next cycle compacts what is left
        assertEquals(List.of("k=v2", "k=v3", "k=v4", "k=v5"),
                read(topic, 0).stream().map(x -> x.key() + "=" + x.value()).toList());
        assertTrue(before.endsWith(segments(topic)), before + " / " + segments(topic));
        StorageInvariants.assertHold(ds);
        assertEquals(2, cycle.runOnce(now).recordsRemoved());  // v2, v3: v4's later record is in the head
        assertEquals(List.of("k=v4", "k=v5"), read(topic, 2).stream().map(x -> x.key() + "=" + x.value()).toList());
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aPassReadsTheWholeCleanSectionAndAtMostItsBudgetAfterIt() throws Exception {
        String topic = "compact-budget";
        createCompacted(topic, Map.of());
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get();
            }
        }
        CompactionStore.Partition part = store.partitions(Instant.now().plusSeconds(1), new CompactionStore.Defaults(0,
                Long.MAX_VALUE, 0, 0.5)).stream().filter(x -> x.queue().equals(topic)).findFirst().orElseThrow();
        assertEquals(4, part.cleanableEnd(), "the head, offset 5, is not cleanable");
        try (CompactionStore.Pass pass = store.open(part.partitionId())) {
            assertEquals(List.of(0L, 1L), pass.segments(0, 4, 0, 2).stream().map(CompactionPass.Segment::baseOffset)
                    .toList(), "two records past the compaction point");
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L), pass.segments(0, 4, 3, 2).stream()
                    .map(CompactionPass.Segment::baseOffset).toList(), "the clean section, then two");
            assertEquals(1, pass.segments(0, 4, 0, 0).size(), "always one segment at least");
        }
    }

    /**
     * The dirty ratio weighs the records written after the compaction point against the records the clean section
     * kept (Kafka's ratio, in records): 80 one-record segments after 200 compacted keys are 0.29 dirty, not due at
     * 0.5; 231 are 0.54 and due.
     */
    @Test
    void theDirtyRatioCountsRecordsAgainstWhatTheCleanSectionKept() throws Exception {
        String topic = "compact-dirty-ratio";
        createCompacted(topic, Map.of());
        try (KafkaProducer<String, String> p = producer()) {
            for (int u = 0; u < 10; u++) {
                for (int k = 0; k < 200; k++) {
                    p.send(new ProducerRecord<>(topic, 0, "k" + k, "v" + u));
                }
                p.flush();
            }
            p.send(new ProducerRecord<>(topic, 0, "head", "h")).get();
        }
        assertEquals(1, passesOver(topic, cycle.runOnce(Instant.now().plusSeconds(1))));
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 79; i++) {  // the previous head is dirty now too: 80
                p.send(new ProducerRecord<>(topic, 0, "k" + (i % 200), "w" + i)).get();
            }
            p.send(new ProducerRecord<>(topic, 0, "head", "h")).get();
        }
        assertEquals(0, passesOver(topic, cycle.runOnce(Instant.now().plusSeconds(1))), "80 / 280 is below 0.5");
        assertEquals(80.0 / 280, Api.metric("queen_compaction_dirty_ratio{queue=\"" + topic + "\"}"), 1e-9);
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 150; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k" + (i % 200), "x" + i)).get();
            }
            p.send(new ProducerRecord<>(topic, 0, "head", "h")).get();
        }
        assertEquals(1, passesOver(topic, cycle.runOnce(Instant.now().plusSeconds(1))), "231 / 431 reaches 0.5");
        StorageInvariants.assertHold(ds);
    }

    private static long passesOver(String topic, CompactionCycle.Report r) {
        return r.passes().stream().filter(c -> c.queue().equals(topic)).count();
    }

    @Test
    void theHttpConfigureRouteShowsAndChangesTheSameSettings() throws Exception {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"http-compacted\",\"compaction\":"
                + "{\"cleanupPolicy\":\"compact\",\"deleteRetentionMs\":0,\"minCleanableDirtyRatio\":\"0.25\"}}");
        assertEquals(200, r.status(), r.body());
        JsonNode c = Api.json(r.body()).get("compaction");
        assertEquals("compact", c.get("cleanupPolicy").asText());
        assertEquals(0, c.get("deleteRetentionMs").asLong());
        assertEquals(0.25, c.get("minCleanableDirtyRatio").asDouble());
        assertEquals(0, c.get("minCompactionLagMs").asLong());
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "http-compacted");
        try (Admin a = admin()) {
            Config k = a.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            assertEquals("compact", k.get("cleanup.policy").value());
            assertEquals("0", k.get("delete.retention.ms").value());
            assertEquals("0.25", k.get("min.cleanable.dirty.ratio").value());
        }
        Http.Reply bad = Http.post("/api/v1/configure", "{\"queue\":\"http-compacted\",\"compaction\":"
                + "{\"cleanupPolicy\":\"compact\",\"maxCompactionLagMs\":-5}}");
        assertEquals(400, bad.status(), bad.body());
        assertTrue(Api.json(bad.body()).get("error").asText().startsWith("compaction.maxCompactionLagMs must be"),
                bad.body());
        // without a compaction object the queue's stay as they are
        r = Http.post("/api/v1/configure", "{\"queue\":\"http-compacted\"}");
        assertEquals("compact", Api.json(r.body()).get("compaction").get("cleanupPolicy").asText());
    }

    @Test
    void theCompactionConfigsAreDescribedAndAltered() throws Exception {
        String name = "compact-configs";
        createCompacted(name, Map.of("min.compaction.lag.ms", "1000", "segment.ms", "600000"));
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, name);
        try (Admin a = admin()) {
            Config c = a.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            assertEquals("compact", c.get("cleanup.policy").value());
            assertEquals("1000", c.get("min.compaction.lag.ms").value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, c.get("min.compaction.lag.ms").source());
            assertEquals("86400000", c.get("delete.retention.ms").value());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, c.get("delete.retention.ms").source());
            assertEquals("0.5", c.get("min.cleanable.dirty.ratio").value());
            assertEquals("9223372036854775807", c.get("max.compaction.lag.ms").value());
            a.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("min.cleanable.dirty.ratio", "0.2"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("min.compaction.lag.ms", null), AlterConfigOp.OpType.DELETE))))
                    .all().get(30, TimeUnit.SECONDS);
            c = a.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            assertEquals("compact,delete", c.get("cleanup.policy").value());
            assertEquals("0.2", c.get("min.cleanable.dirty.ratio").value());
            assertEquals("0", c.get("min.compaction.lag.ms").value());
            ExecutionException refused = assertThrows(ExecutionException.class, () -> a.incrementalAlterConfigs(
                    Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("min.cleanable.dirty.ratio", "2"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(InvalidConfigurationException.class, refused.getCause());
            assertTrue(refused.getCause().getMessage().contains("min.cleanable.dirty.ratio"), refused.toString());
            refused = assertThrows(ExecutionException.class, () -> a.createTopics(List.of(new NewTopic("bad-lag", 1,
                    (short) 1).configs(Map.of("max.compaction.lag.ms", "0")))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(InvalidConfigurationException.class, refused.getCause());
            assertTrue(refused.getCause().getMessage().contains("max.compaction.lag.ms"), refused.toString());
        }
    }

    @Test
    void producingWhileCompactionRunsLosesAndDuplicatesNothing() throws Exception {
        String topic = "compact-concurrent";
        createCompacted(topic, Map.of("min.cleanable.dirty.ratio", "0.01"));
        int keys = 200;
        int rounds = 60;
        AtomicBoolean producing = new AtomicBoolean(true);
        Map<String, String> last = new HashMap<>();
        Thread producer = Thread.ofPlatform().start(() -> {
            try (KafkaProducer<String, String> p = producer()) {
                for (int u = 0; u < rounds; u++) {
                    for (int k = 0; k < keys; k++) {
                        p.send(new ProducerRecord<>(topic, 0, "k" + k, "v" + k + "-" + u));
                        last.put("k" + k, "v" + k + "-" + u);
                    }
                    p.flush();
                }
            } finally {
                producing.set(false);
            }
        });
        int cycles = 0;
        long removed = 0;
        while (producing.get()) {
            removed += cycle.runOnce(Instant.now().plusSeconds(1)).recordsRemoved();
            cycles++;
        }
        producer.join();
        removed += cycle.runOnce(Instant.now().plusSeconds(1)).recordsRemoved();
        LOG.infof("%d cycles while producing, %d records removed", cycles, removed);
        assertTrue(removed > 0, "compaction removed records while the producer ran");
        List<ConsumerRecord<String, String>> all = read(topic, 0);
        Map<String, ConsumerRecord<String, String>> got = latest(all);
        assertEquals(keys, got.size());
        got.forEach((k, v) -> assertEquals(last.get(k), v.value(), k));
        assertEquals(all.size(), all.stream().map(ConsumerRecord::offset).distinct().count(), "no offset twice");
        assertNotNull(firstFrom(topic, 0));
        StorageInvariants.assertHold(ds);
    }
}
