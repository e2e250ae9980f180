package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker process killed with -9 while a Kafka transaction is open (its records staged): after the restart a
 * producer with the same transactional id aborts that transaction on InitProducerId, none of its records is ever
 * visible (read_committed or read_uncommitted), its staging is gone, and the next transaction commits.
 */
class KafkaTransactionCrashIT {
    static final String TOPIC = "txn-crash";

    static BrokerDatabase database;
    static BrokerProcess broker;
    static int kafkaPort;

    static Map<String, String> env() {
        return Map.of("QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1");
    }

    @BeforeAll
    static void start() throws Exception {
        database = BrokerDatabase.create("kafkatxncrash");
        kafkaPort = BrokerProcess.freePort();
        broker = database.start("kafka-txn-crash", env());
    }

    @AfterAll
    static void stop() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    static long count(String sql) throws Exception {
        try (Connection c = database.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "crash-copier");
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);  // only the new producer may end it
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    List<String> read(String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1),
                    new TopicPartition(TOPIC, 2));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            List<String> out = new ArrayList<>();
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                c.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
            }
            out.sort(null);
            return out;
        }
    }

    @Test
    void anOpenTransactionOfAKilledBrokerIsAbortedByTheRestartedProducer() throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        KafkaProducer<String, String> crashed = producer();
        crashed.initTransactions();
        crashed.beginTransaction();
        for (int i = 0; i < 6; i++) {
            crashed.send(new ProducerRecord<>(TOPIC, i % 3, "k", "before-" + i));
        }
        crashed.commitTransaction();
        crashed.beginTransaction();
        for (int i = 0; i < 6; i++) {
            crashed.send(new ProducerRecord<>(TOPIC, i % 3, "k", "lost-" + i));
        }
        crashed.flush();
        assertEquals(3, count("SELECT count(*) FROM queen.kafka_txn_records"), "one staged batch per partition");

        broker.kill();
        crashed.close(Duration.ZERO);
        broker = database.start("kafka-txn-crash", env());

        try (KafkaProducer<String, String> restarted = producer()) {
            restarted.initTransactions();  // aborts the open transaction of the older epoch
            assertEquals(0, count("SELECT count(*) FROM queen.kafka_txn_records"), "the staging is dropped");
            restarted.beginTransaction();
            for (int i = 0; i < 6; i++) {
                restarted.send(new ProducerRecord<>(TOPIC, i % 3, "k", "after-" + i));
            }
            restarted.commitTransaction();
        }
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            want.add("after-" + i);
            want.add("before-" + i);
        }
        want.sort(null);
        assertEquals(want, read("read_committed"));
        assertEquals(want, read("read_uncommitted"));
        assertEquals(1, count("SELECT count(*) FROM queen.kafka_transactions WHERE transactional_id = 'crash-copier'"
                + " AND state = 'CompleteCommit' AND epoch = 1"));
    }
}
