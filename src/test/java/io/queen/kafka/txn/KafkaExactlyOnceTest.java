package io.queen.kafka.txn;

import io.queen.kafka.KafkaListenerClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.ReadToEnd;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consume-transform-produce loop with the Java clients: read_committed consumers in one group, each with its own
 * transactional producer that commits its output with the consumed offsets (sendOffsetsToTransaction with the
 * consumer's group metadata). A second worker joins midway and the first leaves later (two rebalances); the output
 * holds every input record exactly once and the group's cursors stand at the end of the input. With each group
 * protocol: classic, and the consumer protocol of KIP-848 (the transaction's offsets checked against the member
 * epoch).
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaExactlyOnceTest extends KafkaListenerClients {
    static final int PER_PARTITION = 40;
    /** The group protocol of the run under way ({@code classic} or {@code consumer}), and its names. */
    String protocol;
    String in;
    String out;
    String group;



    /** One worker: poll, transform, commit output and offsets in one transaction; abort and rewind on failure. */
    final class Worker extends Thread {
        final String id;
        volatile boolean stop;
        volatile Throwable failure;

        Worker(String id) {
            super("eos-" + id);
            this.id = id;
        }

        @Override
        public void run() {
            Properties cp = consumerProperties(bootstrap(), group);
            cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 4);
            cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            if (protocol.equals("classic")) {
                // the consumer protocol takes its timings from the broker
                cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 3000);
                cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
            }
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
            pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "eos-" + protocol + "-" + id);
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(),
                    new StringDeserializer());
                    KafkaProducer<String, String> p = new KafkaProducer<>(pp, new StringSerializer(),
                            new StringSerializer())) {
                p.initTransactions();
                c.subscribe(List.of(in));
                while (!stop) {
                    ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                    if (records.isEmpty()) {
                        continue;
                    }
                    try {
                        p.beginTransaction();
                        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                        for (ConsumerRecord<String, String> r : records) {
                            p.send(new ProducerRecord<>(out, r.partition(), r.key(), "copy-" + r.value()));
                            offsets.put(new TopicPartition(r.topic(), r.partition()),
                                    new OffsetAndMetadata(r.offset() + 1));
                        }
                        p.sendOffsetsToTransaction(offsets, c.groupMetadata());
                        p.commitTransaction();
                    } catch (ProducerFencedException e) {
                        throw e;
                    } catch (KafkaException e) {
                        // a rebalance took the partitions (stale generation): drop the work, restart from the commits
                        p.abortTransaction();
                        for (TopicPartition tp : c.assignment()) {
                            OffsetAndMetadata at = c.committed(java.util.Set.of(tp)).get(tp);
                            c.seek(tp, at == null ? 0 : at.offset());
                        }
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        void stopAndJoin() throws InterruptedException {
            stop = true;
            join(60_000);
        }
    }

    /** The output's values as a read_committed consumer reads them to the end offsets. */
    List<String> output() {
        return ReadToEnd.values(bootstrap(), "read_committed", ReadToEnd.partitions(3, out));
    }

    static void await(String what, IntSupplier count, int atLeast, Worker... workers) throws Exception {
        Await.until(what, () -> {
            for (Worker w : workers) {
                assertNull(w.failure, w.getName() + " failed: " + w.failure);
            }
            return count.getAsInt() >= atLeast;
        }, Duration.ofSeconds(90));
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void everyInputRecordIsCopiedExactlyOnceAcrossRebalances(String groupProtocol) throws Exception {
        protocol = groupProtocol;
        in = "eos-in-" + protocol;
        out = "eos-out-" + protocol;
        group = "eos-copier-" + protocol;
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (Admin a = Admin.create(ap)) {
            a.createTopics(List.of(new NewTopic(in, 3, (short) 1), new NewTopic(out, 3, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<String, String> p = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int part = 0; part < 3; part++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    p.send(new ProducerRecord<>(in, part, "k", part + "-" + i));
                }
            }
            p.flush();
        }
        int total = 3 * PER_PARTITION;
        Worker first = new Worker("w1");
        first.start();
        await("the first worker's output", () -> output().size(), total / 4, first);
        Worker second = new Worker("w2");
        second.start();
        await("output after the join", () -> output().size(), total / 2, first, second);
        first.stopAndJoin();
        await("every record copied", () -> output().size(), total, second);
        second.stopAndJoin();
        assertNull(first.failure, "w1: " + first.failure);
        assertNull(second.failure, "w2: " + second.failure);

        List<String> got = output();
        List<String> want = new ArrayList<>();
        for (int part = 0; part < 3; part++) {
            for (int i = 0; i < PER_PARTITION; i++) {
                want.add("copy-" + part + "-" + i);
            }
        }
        got.sort(null);
        want.sort(null);
        assertEquals(want, got, "each input record exactly once");
        Map<String, Long> cursors = KafkaTransactionTest.cursors(group, in);
        assertEquals(Map.of("0", PER_PARTITION - 1L, "1", PER_PARTITION - 1L, "2", PER_PARTITION - 1L), cursors);
    }
}
