package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import io.queen.kafka.ReadToEnd;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker process killed with -9 while a Kafka transaction is open (its records staged): after the restart a
 * producer with the same transactional id aborts that transaction on InitProducerId, none of its records is ever
 * visible (read_committed or read_uncommitted), its staging is gone, and the next transaction commits. And a
 * transactional id served by two brokers in turn: all its state is in PostgreSQL, so a producer on the second broker
 * fences the one on the first.
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
        return producer("crash-copier");
    }

    KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);  // only the new producer may end it
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    List<String> read(String isolation) {
        return ReadToEnd.sorted(bootstrap(), isolation, ReadToEnd.partitions(3, TOPIC));
    }

    @Test
    void aProducerOnAnotherBrokerFencesTheFirstAndAbortsItsTransaction() throws Exception {
        int otherPort = BrokerProcess.freePort();
        BrokerProcess other = database.start("kafka-txn-other", Map.of("QUEEN_KAFKA_ENABLED", "true",
                "QUEEN_KAFKA_PORT", String.valueOf(otherPort), "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1"));
        try {
            KafkaListenerClients.createTopicsAt(bootstrap(), new NewTopic("txn-moved", 3, (short) 1));
            Properties second = new Properties();
            second.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + otherPort);
            second.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "moved-copier");
            try (KafkaProducer<String, String> first = producer("moved-copier");
                    KafkaProducer<String, String> late = new KafkaProducer<>(second, new StringSerializer(),
                            new StringSerializer())) {
                first.initTransactions();
                first.beginTransaction();
                first.send(new ProducerRecord<>("txn-moved", 0, "k", "zombie")).get(30, TimeUnit.SECONDS);
                late.initTransactions();  // on the other broker: fences the first, aborts its transaction
                KafkaException e = assertThrows(KafkaException.class, first::commitTransaction);
                assertTrue(e instanceof ProducerFencedException || e.getCause() instanceof ProducerFencedException,
                        e.toString());
                late.beginTransaction();
                late.send(new ProducerRecord<>("txn-moved", 1, "k", "live"));
                late.commitTransaction();
            }
            assertEquals(List.of("live"), ReadToEnd.sorted(bootstrap(), "read_uncommitted",
                    ReadToEnd.partitions(3, "txn-moved")));
        } finally {
            other.close();
        }
    }

    @Test
    void anOpenTransactionOfAKilledBrokerIsAbortedByTheRestartedProducer() throws Exception {
        KafkaListenerClients.createTopicsAt(bootstrap(), new NewTopic(TOPIC, 3, (short) 1));
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
