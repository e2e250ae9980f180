package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.cluster.ClusterView;
import io.queen.kafka.cluster.KafkaNode;
import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three broker processes on one database form one Kafka cluster. Metadata shows the three with partition leadership
 * spread; an idempotent acks=all producer and a group of three consumers run while the broker coordinating the group
 * is killed with -9, then the group's next coordinator is stopped with SIGTERM. Every acknowledged record is read
 * back by the group, every record is in the topic once, the group continues on each new coordinator (its generation
 * carried over from PostgreSQL), the committed offsets end exactly at the end of every partition, and the stopped
 * broker left the cluster at once.
 * Prints the figures docs/kafka.md quotes.
 */
class KafkaClusterIT {
    static final int PARTITIONS = 6;
    static final String TOPIC = "orders";

    static BrokerDatabase database;
    static final List<BrokerProcess> brokers = new ArrayList<>();
    static final List<Integer> kafkaPorts = new ArrayList<>();

    static Map<String, String> env(int kafkaPort) {
        return Map.of("QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1", "QUEEN_KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS", "1000",
                "QUEEN_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0", "DB_POOL_SIZE", "5");
    }

    @BeforeAll
    static void start() throws Exception {
        database = BrokerDatabase.create("kafkacluster");
        for (int i = 0; i < 3; i++) {
            int port = BrokerProcess.freePort();
            kafkaPorts.add(port);
            brokers.add(database.start("kafka-cluster-" + i, env(port)));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (database != null) {
            database.close();  // storage invariants, brokers stopped, database dropped
        }
    }

    static Admin admin(int port) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        return Admin.create(p);
    }

    static String sqlOne(String sql) throws Exception {
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** The Kafka node ids of the live brokers, by Kafka port, as Metadata reports them. */
    static Map<Integer, Integer> idsByPort(Admin admin) throws Exception {
        Map<Integer, Integer> out = new TreeMap<>();
        for (Node n : admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
            out.put(n.port(), n.id());
        }
        return out;
    }

    /** When each delivery happened (ns), per partition: the gaps after a broker's loss are the time to move on. */
    static final class TimedDeliveries extends ConcurrentLinkedQueue<GroupConsumer.Delivery> {
        final Map<Integer, ConcurrentLinkedQueue<Long>> at = new ConcurrentHashMap<>();

        @Override
        public boolean add(GroupConsumer.Delivery d) {
            at.computeIfAbsent(d.partition(), k -> new ConcurrentLinkedQueue<>()).add(System.nanoTime());
            return super.add(d);
        }

        /** Every partition has a delivery after {@code t}. */
        boolean allAfter(long t) {
            for (int p = 0; p < PARTITIONS; p++) {
                ConcurrentLinkedQueue<Long> q = at.get(p);
                if (q == null || q.stream().noneMatch(x -> x > t)) {
                    return false;
                }
            }
            return true;
        }

    }

    /**
     * The time to move on after an event at {@code t}: the longest pause, over partitions, between two consecutive
     * events (deliveries or acks) of one partition, the later one in {@code (t, until]} (ms).
     */
    static long moveOnMs(Map<Integer, ConcurrentLinkedQueue<Long>> at, long t, long until) {
        long worst = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            List<Long> times = at.get(p).stream().sorted().toList();
            for (int i = 1; i < times.size(); i++) {
                if (times.get(i) > t && times.get(i) <= until) {
                    worst = Math.max(worst, (times.get(i) - times.get(i - 1)) / 1_000_000);
                }
            }
        }
        return worst;
    }

    /** Round after round, one record "p:i" to every partition, until told to stop at the end of a round. */
    static final class Producer extends Thread {
        final KafkaProducer<String, String> producer;
        final AtomicBoolean stop = new AtomicBoolean();
        final Set<String> acked = ConcurrentHashMap.newKeySet();
        final AtomicInteger failed = new AtomicInteger();
        final Map<Integer, ConcurrentLinkedQueue<Long>> ackedAt = new ConcurrentHashMap<>();
        volatile int rounds;

        Producer(String bootstrap) {
            super("cluster-producer");
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(p);
        }

        @Override
        public void run() {
            for (int i = 0; !stop.get(); i++) {
                for (int part = 0; part < PARTITIONS; part++) {
                    String value = part + ":" + i;
                    int partition = part;
                    producer.send(new ProducerRecord<>(TOPIC, part, "k" + part, value), (md, e) -> {
                        if (e == null) {
                            acked.add(value);
                            ackedAt.computeIfAbsent(partition, k -> new ConcurrentLinkedQueue<>())
                                    .add(System.nanoTime());
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                }
                rounds = i + 1;
                try {
                    Thread.sleep(20); // about 300 records a second
                } catch (InterruptedException e) {
                    return;
                }
            }
            producer.flush();
            producer.close();
        }
    }

    static void await(String what, long seconds, java.util.function.BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(50);
        }
    }

    @Test
    void aGroupAndAnIdempotentProducerRideOutAKilledAndAStoppedBroker() throws Exception {
        Map<Integer, Integer> ids;
        List<KafkaNode> nodes = new ArrayList<>();
        try (Admin admin = admin(kafkaPorts.get(0))) {
            await("three brokers in Metadata", 30, () -> {
                try {
                    return idsByPort(admin).size() == 3;
                } catch (Exception e) {
                    return false;
                }
            });
            ids = idsByPort(admin);
            ids.forEach((port, id) -> nodes.add(new KafkaNode(id, "127.0.0.1", port, null)));
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            // each broker refreshes its view of the live brokers every heartbeat, so the broker answering this may
            // not see the newest one yet: wait for the views to agree, as a client's next Metadata would
            Map<Integer, Integer> led = new TreeMap<>();
            await("leadership spread over the three in Metadata", 30, () -> {
                led.clear();
                try {
                    admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                            .partitions().forEach(p -> led.merge(p.leader().id(), 1, Integer::sum));
                } catch (Exception e) {
                    return false;
                }
                return led.size() == 3;
            });
            System.out.printf("cluster: node ids by Kafka port %s; partitions led per node %s%n", ids, led);
            assertEquals(3, led.size(), "leadership spread over the three");
            led.values().forEach(n -> assertEquals(2, n));
        }
        // the group the killed broker coordinates, whose next coordinator is the broker stopped after it
        KafkaNode killed = null;
        KafkaNode stopped = null;
        String group = null;
        for (int i = 0; group == null; i++) {
            String g = "billing-" + i;
            KafkaNode first = new ClusterView(nodes.get(0), nodes).coordinator(ClusterView.KeyType.GROUP, g);
            List<KafkaNode> rest = nodes.stream().filter(n -> n.id() != first.id()).toList();
            KafkaNode second = new ClusterView(rest.get(0), rest).coordinator(ClusterView.KeyType.GROUP, g);
            if (first.port() != kafkaPorts.get(2) && second.port() != kafkaPorts.get(2)) {
                group = g;
                killed = first;
                stopped = second;
            }
        }
        BrokerProcess toKill = brokers.get(kafkaPorts.indexOf(killed.port()));
        BrokerProcess toStop = brokers.get(kafkaPorts.indexOf(stopped.port()));
        // one bootstrap address: the broker that stays (behind a load balancer it would be any of them)
        String bootstrap = "127.0.0.1:" + kafkaPorts.get(2);

        Producer producer = new Producer(bootstrap);
        TimedDeliveries deliveries = new TimedDeliveries();
        String range = "org.apache.kafka.clients.consumer.RangeAssignor";
        List<GroupConsumer> consumers = new ArrayList<>();
        for (String name : List.of("c1", "c2", "c3")) {
            consumers.add(new GroupConsumer(bootstrap, name, group, range, TOPIC, deliveries, null));
        }
        producer.start();
        consumers.forEach(Thread::start);
        await("the group consuming on every partition", 60, () -> deliveries.at.size() == PARTITIONS
                && deliveries.size() > 600);
        String generationBefore = sqlOne("SELECT generation FROM queen.kafka_groups WHERE group_id = '" + group + "'");

        long killedAt = System.nanoTime();
        toKill.kill();
        await("every partition delivering again after kill -9", 90, () -> deliveries.allAfter(killedAt)
                && producer.ackedAt.values().stream().allMatch(q -> q.stream().anyMatch(x -> x > killedAt)));
        String generationAfterKill = sqlOne("SELECT generation FROM queen.kafka_groups WHERE group_id = '"
                + group + "'");

        long stoppedAt = System.nanoTime();
        long killMoveOn = moveOnMs(deliveries.at, killedAt, stoppedAt);
        long killAckMoveOn = moveOnMs(producer.ackedAt, killedAt, stoppedAt);
        long termMs = toStop.terminate(Duration.ofSeconds(30));
        assertEquals("t", sqlOne("SELECT expires_at <= now() FROM queen.kafka_brokers WHERE node_id = "
                + stopped.id()), "a stopped broker leaves the cluster at once, not after its session");
        await("every partition delivering again after SIGTERM", 90, () -> deliveries.allAfter(stoppedAt)
                && producer.ackedAt.values().stream().allMatch(q -> q.stream().anyMatch(x -> x > stoppedAt)));
        producer.stop.set(true);
        long stopMoveOn = moveOnMs(deliveries.at, stoppedAt, System.nanoTime());
        long stopAckMoveOn = moveOnMs(producer.ackedAt, stoppedAt, System.nanoTime());
        String generationAfterStop = sqlOne("SELECT generation FROM queen.kafka_groups WHERE group_id = '"
                + group + "'");

        producer.join(150_000);
        int perPartition = producer.rounds;
        Map<Integer, Long> end = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            end.put(p, (long) perPartition);
        }
        try (Admin admin = admin(kafkaPorts.get(2))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
            }
            Map<Integer, Long> written = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, o) -> written.put(tp.partition(), o.offset()));
            assertEquals(end, written, "every record once in the topic (no duplicate from a retried batch)");
            String g = group;
            await("every offset committed", 90, () -> GroupConsumer.committed(admin, g).equals(end));
            assertEquals(Map.of(kafkaPorts.get(2), ids.get(kafkaPorts.get(2))), idsByPort(admin));
        }
        for (GroupConsumer c : consumers) {
            c.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            assertNull(c.failure, c.getName() + " failed: " + c.failure);
        }

        Set<String> read = new HashSet<>();
        Set<String> seenOffsets = new HashSet<>();
        int duplicates = 0;
        int outOfSendOrder = 0;
        for (GroupConsumer.Delivery d : deliveries) {
            read.add(d.value());
            if (!seenOffsets.add(d.partition() + "@" + d.offset())) {
                duplicates++;
            } else if (!(d.partition() + ":" + d.offset()).equals(d.value())) {
                outOfSendOrder++; // a batch retried across the leadership move landed after a later one
            }
        }
        Set<String> lost = new HashSet<>(producer.acked);
        lost.removeAll(read);
        System.out.printf("figures: records acknowledged %d (send failures %d), read back %d deliveries of %d distinct"
                        + " records, duplicates %d, lost %d, stored out of send order %d%n", producer.acked.size(),
                producer.failed.get(), deliveries.size(), read.size(), duplicates, lost.size(), outOfSendOrder);
        System.out.printf("figures: kill -9 of node %d (the group's coordinator): longest pause of a partition's"
                + " consumption %d ms, of its produce acks %d ms; group generation %s before, %s after%n",
                killed.id(), killMoveOn, killAckMoveOn, generationBefore, generationAfterKill);
        System.out.printf("figures: SIGTERM of node %d (the next coordinator, exited after %d ms): longest pause of"
                + " a partition's consumption %d ms, of its produce acks %d ms; group generation %s after%n",
                stopped.id(), termMs, stopMoveOn, stopAckMoveOn, generationAfterStop);
        assertEquals(0, producer.failed.get(), "no send failed");
        assertEquals(Set.of(), lost, "every acknowledged record read back");
        assertEquals(PARTITIONS * perPartition, producer.acked.size());
        // every offset delivered, in offset order per assignment; a record's offset is its send order except for
        // batches in flight across a leadership move (no sequence checks: docs/kafka.md, differences)
        GroupConsumer.assertEveryOffsetInOrder(deliveries, PARTITIONS, perPartition);
        assertTrue(Integer.parseInt(generationAfterKill) >= Integer.parseInt(generationBefore),
                "generations never go backwards");
        assertTrue(Integer.parseInt(generationAfterStop) >= Integer.parseInt(generationAfterKill));
    }
}
