package io.queen.kafka.txn;

import io.queen.kafka.KafkaListenerClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.ReadToEnd;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The Java client's transactional producer and read_committed consumers against the listener: a committed
 * transaction's records (two topics, several partitions) and its offsets (sendOffsetsToTransaction) appear together
 * and only at the commit; an aborted transaction's records never appear, to read_committed or read_uncommitted
 * consumers or to HTTP pops; a second producer with the same transactional id fences the first and aborts its open
 * transaction; a transaction left open past its timeout is aborted by the broker and its producer fenced.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaTransactionTest extends KafkaListenerClients {



    void createTopics(String... names) throws Exception {
        try (Admin a = admin()) {
            List<NewTopic> topics = new ArrayList<>();
            for (String n : names) {
                topics.add(new NewTopic(n, 3, (short) 1));
            }
            a.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }

    KafkaProducer<String, String> producer(String transactionalId, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(String bootstrap, String isolation, String group) {
        Properties p = consumerProperties(bootstrap, group);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static List<TopicPartition> partitions(String... topics) {
        return ReadToEnd.partitions(3, topics);
    }

    /** The values of every record of the topics' partitions, up to their end offsets as the consumer sees them. */
    List<String> readToEnd(String isolation, String... topics) {
        return ReadToEnd.values(bootstrap(), isolation, partitions(topics));
    }

    long endOffsets(String isolation, String... topics) {
        try (KafkaConsumer<String, String> c = consumer(bootstrap(), isolation, null)) {
            return c.endOffsets(partitions(topics)).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** The group's committed offsets as Queen's consumer-group route shows them (Queen's cursor: offset - 1). */
    static Map<String, Long> cursors(String group, String topic) {
        Http.Reply r = Http.get("/api/v1/consumer-groups/" + group);
        Map<String, Long> out = new TreeMap<>();
        if (r.status() != 200) {
            return out;
        }
        JsonNode q = Api.json(r.body()).get(topic);
        if (q != null) {
            for (JsonNode p : q.get("partitions")) {
                out.put(p.get("partition").asText(), p.get("committedOffset").asLong());
            }
        }
        return out;
    }

    @Test
    void committedRecordsAndOffsetsAppearTogetherAndAbortedOnesNever() throws Exception {
        createTopics("txn-in", "txn-out-a", "txn-out-b");
        String group = "txn-copier";
        try (KafkaProducer<String, String> p = producer("copier-1", 30000)) {
            p.initTransactions();
            p.beginTransaction();
            List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String topic = i % 2 == 0 ? "txn-out-a" : "txn-out-b";
                sends.add(p.send(new ProducerRecord<>(topic, i % 3, "k" + i, "committed-" + i)));
            }
            p.flush();
            for (var f : sends) {
                assertEquals(-1, f.get().offset(), "offsets are given at the commit");
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(
                    new TopicPartition("txn-in", 0), new OffsetAndMetadata(5),
                    new TopicPartition("txn-in", 2), new OffsetAndMetadata(7));
            p.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group));

            // staged: invisible to every reader, the group's cursors unmoved
            assertEquals(0, endOffsets("read_uncommitted", "txn-out-a", "txn-out-b"));
            assertEquals(List.of(), readToEnd("read_uncommitted", "txn-out-a", "txn-out-b"));
            assertEquals(Map.of(), cursors(group, "txn-in"));
            try (Admin a = admin()) {
                TransactionDescription d = a.describeTransactions(List.of("copier-1")).description("copier-1")
                        .get(30, TimeUnit.SECONDS);
                assertEquals(TransactionState.ONGOING, d.state());
                assertEquals(6, d.topicPartitions().size(), d.toString());
                assertTrue(a.listTransactions().all().get(30, TimeUnit.SECONDS).stream().anyMatch(l ->
                        l.transactionalId().equals("copier-1") && l.state() == TransactionState.ONGOING));
            }
            // a new member with requireStable waits for the transaction: its OffsetFetch is answered unstable
            try (KafkaConsumer<String, String> c = consumer(bootstrap(), "read_committed", group)) {
                assertThrows(org.apache.kafka.common.errors.TimeoutException.class,
                        () -> c.committed(java.util.Set.of(new TopicPartition("txn-in", 0)), Duration.ofMillis(1500)));
            }

            p.commitTransaction();

            // an aborted transaction in between
            p.beginTransaction();
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>("txn-out-a", i % 3, "k" + i, "aborted-" + i));
            }
            p.sendOffsetsToTransaction(Map.of(new TopicPartition("txn-in", 0), new OffsetAndMetadata(99)),
                    new ConsumerGroupMetadata(group));
            p.flush();
            p.abortTransaction();

            p.beginTransaction();
            for (int i = 12; i < 15; i++) {
                p.send(new ProducerRecord<>("txn-out-a", i % 3, "k" + i, "committed-" + i));
            }
            p.commitTransaction();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            expected.add("committed-" + i);
        }
        for (String isolation : List.of("read_committed", "read_uncommitted")) {
            List<String> got = readToEnd(isolation, "txn-out-a", "txn-out-b");
            got.sort(null);
            List<String> want = new ArrayList<>(expected);
            want.sort(null);
            assertEquals(want, got, isolation);
            assertEquals(15, endOffsets(isolation, "txn-out-a", "txn-out-b"), isolation);
        }
        // HTTP pops see the committed records only
        int popped = 0;
        for (int part = 0; part < 3; part++) {
            for (JsonNode m : Api.messages(Api.pop("/api/v1/pop/queue/txn-out-a/partition/" + part + "?batch=100"))) {
                assertTrue(m.toString().contains("committed-"), m.toString());
                popped++;
            }
        }
        assertEquals(9, popped);
        // the offsets committed with the first transaction are the group's cursors (offset - 1)
        assertEquals(Map.of("0", 4L, "2", 6L), cursors(group, "txn-in"));
        try (KafkaConsumer<String, String> c = consumer(bootstrap(), "read_committed", group)) {
            Map<TopicPartition, OffsetAndMetadata> got = c.committed(
                    java.util.Set.of(new TopicPartition("txn-in", 0), new TopicPartition("txn-in", 2)),
                    Duration.ofSeconds(30));
            assertEquals(5, got.get(new TopicPartition("txn-in", 0)).offset());
            assertEquals(7, got.get(new TopicPartition("txn-in", 2)).offset());
        }
    }

    @Test
    void aSecondProducerWithTheSameIdFencesTheFirstAndAbortsItsTransaction() throws Exception {
        createTopics("fenced-out");
        try (KafkaProducer<String, String> first = producer("fenced-1", 30000);
                KafkaProducer<String, String> second = producer("fenced-1", 30000)) {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>("fenced-out", 0, "k", "zombie")).get(30, TimeUnit.SECONDS);

            second.initTransactions();  // fences the first, aborts its open transaction
            KafkaException e = assertThrows(KafkaException.class, first::commitTransaction);
            assertInstanceOf(ProducerFencedException.class, e instanceof ProducerFencedException ? e : e.getCause(),
                    e.toString());

            second.beginTransaction();
            second.send(new ProducerRecord<>("fenced-out", 1, "k", "live"));
            second.commitTransaction();
        }
        assertEquals(List.of("live"), readToEnd("read_committed", "fenced-out"));
        assertEquals(List.of("live"), readToEnd("read_uncommitted", "fenced-out"));
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsAbortedAndItsProducerFenced() throws Exception {
        createTopics("timeout-out");
        try (KafkaProducer<String, String> p = producer("slow-1", 1000)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("timeout-out", 0, "k", "too-late")).get(30, TimeUnit.SECONDS);
            try (Admin a = admin()) {
                Await.until("the broker aborts the timed-out transaction", () -> a.describeTransactions(
                        List.of("slow-1")).description("slow-1").get(30, TimeUnit.SECONDS).state()
                        == TransactionState.COMPLETE_ABORT, Duration.ofSeconds(30));
            }
            KafkaException e = assertThrows(KafkaException.class, p::commitTransaction);
            assertInstanceOf(ProducerFencedException.class, e instanceof ProducerFencedException ? e : e.getCause(),
                    e.toString());
        }
        assertEquals(List.of(), readToEnd("read_committed", "timeout-out"));
        try (KafkaProducer<String, String> p = producer("slow-1", 1000)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("timeout-out", 0, "k", "on-time"));
            p.commitTransaction();
        }
        assertEquals(List.of("on-time"), readToEnd("read_committed", "timeout-out"));
    }
}
