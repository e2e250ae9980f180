package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import io.queen.testing.LossyProxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java producer with its default settings (idempotence on) writes 100,000 records over 12 partitions to a
 * broker process that is killed with -9 part-way and restarted on the same Kafka port. Just before the kill the
 * broker's answers are lost on the way (a proxy swallows them) until it has committed batches the producer was
 * never told about: the producer retries them after the restart, and the topic ends up holding every record
 * exactly once, in send order per partition (a retried batch that had committed is answered as a duplicate, with
 * its original offset, and writes nothing).
 */
class KafkaCrashIT {
    static final int RECORDS = 100_000;
    static final int PARTITIONS = 12;
    static final String TOPIC = "crash";

    static BrokerDatabase database;
    static BrokerProcess broker;
    static int kafkaPort;
    static LossyProxy proxy;

    /** Clients reach the broker through the proxy: Metadata announces the proxy's port. */
    static Map<String, String> env() {
        return Map.of("QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1", "QUEEN_KAFKA_ADVERTISED_PORT", String.valueOf(proxy.port()));
    }

    @BeforeAll
    static void start() throws Exception {
        database = BrokerDatabase.create("kafkacrash");
        kafkaPort = BrokerProcess.freePort();
        proxy = new LossyProxy(kafkaPort);
        broker = database.start("kafka-crash", env());
    }

    @AfterAll
    static void stop() throws Exception {
        if (database != null) {
            database.close();  // storage invariants, brokers stopped, database dropped
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    /** Records the topic holds, read from the database. */
    static long stored() throws Exception {
        try (Connection c = database.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COALESCE(sum(lp.last_offset + 1), 0) FROM queen.log_partitions lp"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = '" + TOPIC + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + proxy.port();
    }

    @Test
    void aKillMidProduceLeavesEveryRecordExactlyOnce() throws Exception {
        KafkaListenerClients.createTopicsAt(bootstrap(), new NewTopic(TOPIC, PARTITIONS, (short) 1));
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        AtomicInteger acked = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Map<Integer, Integer> sentPerPartition = new ConcurrentHashMap<>();
        boolean killed = false;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                int partition = i % PARTITIONS;
                int seq = sentPerPartition.merge(partition, 1, Integer::sum) - 1;
                byte[] value = (partition + ":" + seq).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(TOPIC, partition, null, value), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        acked.incrementAndGet();
                    }
                });
            }
            // the sends are buffered; kill once a quarter is acknowledged: batches are in flight then, some
            // committed but not yet answered
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (acked.get() < RECORDS / 4 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            // from here on the broker's answers are lost while it keeps committing: once it holds more records
            // than were acknowledged, batches are committed whose producer never heard so; then the kill
            proxy.dropAnswers(true);
            int ackedAtKill = acked.get();
            long stored = 0;
            while ((stored = stored()) <= ackedAtKill && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            broker.kill();
            proxy.cut();
            killed = ackedAtKill >= RECORDS / 4 && stored > ackedAtKill && ackedAtKill < RECORDS;
            proxy.dropAnswers(false);
            broker = database.start("kafka-crash", env());
            producer.flush();
        }
        assertTrue(killed, "the broker was killed while the producer ran");
        assertNull(failure.get(), "every send succeeded (retried across the restart)");
        assertEquals(RECORDS, acked.get());

        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<Integer, List<String>> values = new HashMap<>();
        int read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            assertEquals(RECORDS, total, "records stored: none lost, none written twice");
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (read < total && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    values.computeIfAbsent(r.partition(), k -> new ArrayList<>())
                            .add(new String(r.value(), StandardCharsets.UTF_8));
                    read++;
                }
            }
        }
        assertEquals(RECORDS, read);
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> got = values.get(p);
            int expected = sentPerPartition.get(p);
            assertEquals(expected, got.size(), "partition " + p);
            for (int s = 0; s < expected; s++) {
                assertEquals(p + ":" + s, got.get(s), "partition " + p + " offset " + s);
            }
        }
    }
}
