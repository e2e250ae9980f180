package io.queen.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.KafkaBrokerProcess;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.StorageInvariants;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker killed with -9 while a compaction pass holds a partition (its advisory lock seen in {@code pg_locks}, so
 * the kill lands inside the pass's transaction, not before or after it), then started again: the pass rolls back
 * with its transaction and a later one completes. An idempotent producer keeps writing through the kill. Afterwards
 * a fresh consumer reads the latest value of every key, every offset once and in order, the compacted section
 * holds each key once, and the storage invariants (the compaction invariant included) hold.
 */
class CompactionCrashIT {
    static final int KEYS = 1_000;
    static final int UPDATES = 60;
    static final String TOPIC = "compaction-crash";

    static KafkaBrokerProcess broker;

    @BeforeAll
    static void start() throws Exception {
        // passes every 100 ms and over at most 20,000 records, so one is under way most of the time while producing
        broker = new KafkaBrokerProcess("compaction-crash", "QUEEN_COMPACTION_INTERVAL_MS", "100",
                "QUEEN_COMPACTION_MAX_RECORDS_PER_PASS", "20000", "QUEEN_COMPACTION_MIN_CLEANABLE_DIRTY_RATIO", "0.1");
        try (Admin admin = KafkaListenerClients.admin(broker.bootstrap())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    static KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 180_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** Whether a compaction pass holds a partition lock of the broker's database right now. */
    static boolean passUnderWay(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks l"
                + " JOIN pg_database d ON d.oid = l.database WHERE d.datname = current_database()"
                + " AND l.locktype = 'advisory' AND l.classid = " + CompactionStore.COMPACTION_LOCK
                + " AND l.granted")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    @Test
    void aKillInsideAPassLosesNothingAndALaterPassCompletes() throws Exception {
        try (KafkaProducer<String, String> p = producer();
                Connection c = DriverManager.getConnection(broker.jdbcUrl(), broker.server().user(), broker.server().password())) {
            CompletableFuture<List<Future<RecordMetadata>>> sends = CompletableFuture.supplyAsync(() -> {
                List<Future<RecordMetadata>> out = new java.util.ArrayList<>();
                for (int u = 0; u < UPDATES; u++) {
                    for (int k = 0; k < KEYS; k++) {
                        out.add(p.send(new ProducerRecord<>(TOPIC, 0, "k" + k, "k" + k + ":" + u)));
                    }
                }
                return out;
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!passUnderWay(c)) {
                assertTrue(System.nanoTime() < deadline, "no compaction pass was seen under way");
                Thread.onSpinWait();
            }
            broker.killAndRestart();
            for (Future<RecordMetadata> f : sends.get()) {
                f.get();   // every record acknowledged, across the kill (the producer retried)
            }
        }
        // a pass after the restart covers the log up to the head segment (never compacted); how many records the
        // head holds depends on how the producer's retries after the kill were batched, so the target is read
        try (Connection c = DriverManager.getConnection(broker.jdbcUrl(), broker.server().user(), broker.server().password())) {
            long headBase = headSegmentBase(c);
            assertTrue(headBase > 0 && headBase < (long) KEYS * UPDATES, "head segment base " + headBase);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (compactedTo(c) < headBase - 1) {
                assertTrue(System.nanoTime() < deadline,
                        "compaction did not catch up: " + compactedTo(c) + ", head segment from " + headBase);
                Thread.sleep(100);
            }
            assertEquals(headBase - 1, compactedTo(c), "the head segment is never compacted");
            assertEquals(List.of(), StorageInvariants.violations(c));
        }
        Map<String, String> latest = new HashMap<>();
        long records = 0;
        long last = -1;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                KafkaListenerClients.consumerProperties(broker.bootstrap(), null), new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    assertTrue(r.offset() > last, "offsets increase: " + r.offset() + " after " + last);
                    last = r.offset();
                    latest.put(r.key(), r.value());
                    records++;
                }
            }
            assertEquals((long) KEYS * UPDATES, end, "every acknowledged record has its offset");
        }
        for (int k = 0; k < KEYS; k++) {
            assertEquals("k" + k + ":" + (UPDATES - 1), latest.get("k" + k), "the latest value of k" + k);
        }
        assertTrue(records < (long) KEYS * UPDATES / 2, "compaction removed most of " + records + " records");
    }

    /** The first offset of the topic partition's head (last) segment. */
    static long headSegmentBase(Connection c) throws Exception {
        return ofTopic(c, "max(t.base_offset)", "queen.log_segments");
    }

    /** The end of the compacted section of the topic's partition (-1 before any pass). */
    static long compactedTo(Connection c) throws Exception {
        return ofTopic(c, "coalesce(max(t.cleaned_to), -1)", "queen.log_compaction");
    }

    /** {@code select} over the rows of {@code table} (as {@code t}, keyed by partition_id) of the topic's partition. */
    static long ofTopic(Connection c, String select, String table) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + select + " FROM " + table
                + " t JOIN queen.log_partitions lp ON lp.id = t.partition_id JOIN queen.queues q ON q.id = lp.queue_id"
                + " WHERE q.name = '" + TOPIC + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
