package io.queen.kafka.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.KafkaBrokerProcess;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.StorageInvariants;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A share group of two members and a consumer group read the same topic while the broker (the coordinator of
 * both) is killed with -9 mid-consumption and started again. Afterwards every record of the share group is either
 * accepted or (every tenth, rejected on purpose) a dead letter, exactly once in PostgreSQL: the cursor at the end
 * of every partition, the dead-letter table holding each rejected record once and nothing else; and the consumer
 * group read every record and committed to the end.
 */
class ShareGroupRestartIT {
    static final int PARTITIONS = 4;
    static final int RECORDS = 200;
    static final String TOPIC = "share-restart";
    static final String SHARE_GROUP = "share-restart";
    static final String GROUP = "classic-restart";

    static KafkaBrokerProcess broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new KafkaBrokerProcess("kafka-share", "QUEEN_KAFKA_SHARE_HEARTBEAT_INTERVAL_MS", "500",
                "QUEEN_KAFKA_SHARE_SESSION_TIMEOUT_MS", "5000");
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    String bootstrap() {
        return broker.bootstrap();
    }

    /** Each record's value is "partition:offset"; every tenth of a partition is rejected by the share group. */
    static boolean rejected(long offset) {
        return offset % 10 == 3;
    }

    @Test
    void aBrokerKilledMidConsumptionLosesNoAcknowledgementAndNoRecord() throws Exception {
        try (Admin a = KafkaListenerClients.admin(bootstrap())) {
            a.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, SHARE_GROUP);
            a.incrementalAlterConfigs(Map.of(group, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", "3000"),
                            AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, p, "k", p + ":" + i));
                }
            }
            producer.flush();
        }

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger handled = new AtomicInteger();
        Set<String> classicSeen = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int m = 0; m < 2; m++) {
            threads.add(Thread.ofPlatform().start(() -> shareMember(running, handled, failures)));
        }
        threads.add(Thread.ofPlatform().start(() -> classicMember(running, classicSeen, failures)));

        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (handled.get() < PARTITIONS * RECORDS / 4 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        int atKill = handled.get();
        broker.killAndRestart();

        String url = broker.jdbcUrl();
        deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while ((cursorsAtEnd(url, SHARE_GROUP) < PARTITIONS || classicSeen.size() < PARTITIONS * RECORDS)
                && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        running.set(false);
        for (Thread t : threads) {
            t.join(60_000);
        }
        synchronized (failures) {
            assertEquals(List.of(), failures);
        }
        assertTrue(atKill >= PARTITIONS * RECORDS / 4 && atKill < PARTITIONS * RECORDS,
                "killed mid-consumption (" + atKill + " handled)");
        assertEquals(PARTITIONS, cursorsAtEnd(url, SHARE_GROUP), "the share group's cursor at every partition's end");
        assertEquals(PARTITIONS * RECORDS, classicSeen.size(), "the consumer group read every record");
        Set<String> expected = new TreeSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int i = 0; i < RECORDS; i++) {
                if (rejected(i)) {
                    expected.add(p + ":" + i);
                }
            }
        }
        assertEquals(expected, deadLetters(url, SHARE_GROUP), "each rejected record a dead letter, once");
        assertEquals(PARTITIONS, cursorsAtEnd(url, GROUP), "the consumer group committed to every partition's end");
        StorageInvariants.assertHold(url, broker.server().user(), broker.server().password());
    }

    private void shareMember(AtomicBoolean running, AtomicInteger handled, List<Throwable> failures) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        p.put("group.id", SHARE_GROUP);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("max.poll.records", "20");
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            c.subscribe(List.of(TOPIC));
            while (running.get()) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    c.acknowledge(r, rejected(r.offset()) ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
                    handled.incrementAndGet();
                }
                try {
                    c.commitSync(Duration.ofSeconds(10));
                } catch (RuntimeException brokerGone) {
                    // the broker died under the commit: what it did not store comes back when the locks expire
                }
            }
        } catch (RuntimeException | Error e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }

    private void classicMember(AtomicBoolean running, Set<String> seen, List<Throwable> failures) {
        Properties p = KafkaListenerClients.consumerProperties(bootstrap(), GROUP);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            c.subscribe(List.of(TOPIC));
            while (running.get()) {
                var records = c.poll(Duration.ofMillis(200));
                records.forEach(r -> seen.add(r.value()));
                if (!records.isEmpty()) {
                    try {
                        c.commitSync(Duration.ofSeconds(10));
                    } catch (RuntimeException brokerGone) {
                        // re-read from the last commit after the restart
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }

    /** How many of the topic's partitions the group's cursor has reached the end of. */
    static int cursorsAtEnd(String url, String group) throws Exception {
        try (Connection c = DriverManager.getConnection(url, broker.server().user(), broker.server().password());
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM queen.log_consumers cc"
                        + " JOIN queen.log_partitions lp ON lp.id = cc.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id"
                        + " WHERE q.name = ? AND cc.consumer_group = ? AND cc.committed = ?")) {
            ps.setString(1, TOPIC);
            ps.setString(2, group);
            ps.setLong(3, RECORDS - 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The group's dead letters as "partition:offset", each once (a letter filed twice would collapse: counted). */
    static Set<String> deadLetters(String url, String group) throws Exception {
        Set<String> out = new TreeSet<>();
        try (Connection c = DriverManager.getConnection(url, broker.server().user(), broker.server().password());
                PreparedStatement ps = c.prepareStatement("SELECT lp.name || ':' || d.\"offset\", count(*)"
                        + " FROM queen.log_dlq d JOIN queen.log_partitions lp ON lp.id = d.partition_id"
                        + " WHERE d.consumer_group = ? GROUP BY 1")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    assertEquals(1, rs.getInt(2), "dead letter " + rs.getString(1) + " filed once");
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
