package io.queen.kafka.share;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.compaction.CompactionCycle;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaListenerClients;
import io.queen.kafka.KafkaTool;
import io.queen.testing.FreshDatabase;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import io.queen.kafka.KafkaFrames;
import java.net.Socket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.ShareGroupCommand;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Share groups with the Java client's {@link KafkaShareConsumer} (explicit acknowledgement): the four acknowledge
 * types, delivery counts, dead letters in Queen's table, locks that expire when their member stops, several members
 * on one partition, group configs, and the cursor a share group moves. On the wire: share sessions belong to members
 * and are bounded, and heartbeats of strangers leave no group behind.
 */
@QuarkusTest
@TestProfile(ShareGroupTest.Profile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ShareGroupTest extends KafkaListenerClients {
    /** At most {@link #MAX_SESSIONS} share sessions on the broker. */
    static final int MAX_SESSIONS = 8;

    /** Short heartbeats and sessions, so that members come and go in a test's time; few share sessions. */
    public static class Profile extends KafkaEnabled {
        public Profile() {
            super("queen.kafka.share.heartbeat-interval-ms", "300", "queen.kafka.share.session-timeout-ms", "5000",
                    "queen.kafka.share.max-share-sessions", Integer.toString(MAX_SESSIONS));
        }
    }

    @Inject
    AgroalDataSource ds;

    @Inject
    CompactionCycle compaction;

    @Inject
    ShareGroups groups;

    private void produce(String topic, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    /** Creates the topic and configures the group: from the earliest record, locks of {@code lockMs}. */
    private void prepare(String topic, int partitions, String group, int lockMs, int deliveryLimit)
            throws Exception {
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
            ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, group);
            a.incrementalAlterConfigs(Map.of(r, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", Integer.toString(lockMs)),
                            AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.delivery.count.limit", Integer.toString(deliveryLimit)),
                            AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private KafkaShareConsumer<String, String> consumer(String group, int maxPollRecords) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        p.put("group.id", group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("max.poll.records", Integer.toString(maxPollRecords));
        return new KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls until at least {@code n} records came (or a minute passed): what came, in order. */
    private static List<ConsumerRecord<String, String>> pollFor(KafkaShareConsumer<String, String> c, int n) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (got.size() < n && System.nanoTime() < deadline) {
            ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(500));
            rs.forEach(got::add);
        }
        return got;
    }

    private long committed(String topic, int partition, String group) throws Exception {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT cc.committed FROM queen.log_consumers cc JOIN queen.log_partitions lp ON lp.id = cc.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = ? AND lp.name = ?"
                        + " AND cc.consumer_group = ?")) {
            ps.setString(1, topic);
            ps.setString(2, Integer.toString(partition));
            ps.setString(3, group);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : Long.MIN_VALUE;
            }
        }
    }

    private static JsonPath deadLetters(String queue, String group) {
        return given().get("/api/v1/dlq?queue=" + queue + "&consumerGroup=" + group).then().statusCode(200)
                .extract().jsonPath();
    }

    @Test
    void acceptReleaseRejectAndRenewWithDeliveryCountsAndDeadLetters() throws Exception {
        prepare("share-acks", 1, "sg-acks", 30_000, 3);
        produce("share-acks", 10);
        try (KafkaShareConsumer<String, String> c = consumer("sg-acks", 100)) {
            c.subscribe(List.of("share-acks"));
            List<ConsumerRecord<String, String>> first = pollFor(c, 10);
            assertEquals(10, first.size(), "every record delivered once");
            for (ConsumerRecord<String, String> r : first) {
                assertEquals((short) 1, r.deliveryCount().orElseThrow(), "first delivery");
                AcknowledgeType type = switch ((int) r.offset()) {
                    case 6 -> AcknowledgeType.RELEASE;
                    case 7 -> AcknowledgeType.REJECT;
                    case 8 -> AcknowledgeType.RENEW;
                    default -> AcknowledgeType.ACCEPT;
                };
                c.acknowledge(r, type);
            }
            c.commitSync(Duration.ofSeconds(30));
            assertEquals(5, committed("share-acks", 0, "sg-acks"), "the cursor stops before the released record");

            // the renewed record comes back to this member as it was (its lock extended), the released one as a
            // second delivery
            // (each poll's records accepted before the next poll, as explicit acknowledgement requires)
            Map<Long, ConsumerRecord<String, String>> again = new HashMap<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (again.size() < 2 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    again.put(r.offset(), r);
                    c.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                c.commitSync(Duration.ofSeconds(30));
            }
            assertEquals(List.of(6L, 8L), again.keySet().stream().sorted().toList(), "released and renewed: " + again);
            assertEquals("v6", again.get(6L).value());
            assertEquals((short) 2, again.get(6L).deliveryCount().orElseThrow(), "the released record's second delivery");
            assertEquals((short) 1, again.get(8L).deliveryCount().orElseThrow(), "the renewed record's first");
        }
        assertEquals(9, committed("share-acks", 0, "sg-acks"), "accepted and dead-lettered records are behind it");
        JsonPath dlq = deadLetters("share-acks", "sg-acks");
        assertEquals(1, dlq.getInt("total"), "the rejected record is a dead letter");
        assertTrue(dlq.getString("messages[0].errorMessage").contains("rejected"), dlq.prettify());
        assertTrue(dlq.prettify().contains("v7"), "its payload snapshot: " + dlq.prettify());
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aShareGroupOnACompactedTopicMovesPastTheOffsetsCompactionRemoved() throws Exception {
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic("share-compacted", 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get(60, TimeUnit.SECONDS);
        }
        prepare("share-compacted-unused", 1, "sg-compacted", 30_000, 3);  // the group's configs
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("share-compacted", "k" + (i % 5), "v" + i)).get();
            }
            producer.send(new ProducerRecord<>("share-compacted", "head", "h")).get();
        }
        assertEquals(5, compaction.runOnce(Instant.now().plusSeconds(1)).recordsRemoved());
        try (KafkaShareConsumer<String, String> c = consumer("sg-compacted", 100)) {
            c.subscribe(List.of("share-compacted"));
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (committed("share-compacted", 0, "sg-compacted") < 10 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    got.add(r);
                    c.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                c.commitSync(Duration.ofSeconds(30));
            }
            assertEquals(List.of("v5", "v6", "v7", "v8", "v9", "h"), got.stream().map(ConsumerRecord::value).toList());
        }
        // the removed offsets were acknowledged as gaps by the client, not dead-lettered after lock expiries
        assertEquals(10, committed("share-compacted", 0, "sg-compacted"));
        assertEquals(0, deadLetters("share-compacted", "sg-compacted").getInt("total"));
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aRecordReleasedUpToTheDeliveryLimitBecomesADeadLetter() throws Exception {
        prepare("share-limit", 1, "sg-limit", 30_000, 2);
        produce("share-limit", 1);
        try (KafkaShareConsumer<String, String> c = consumer("sg-limit", 10)) {
            c.subscribe(List.of("share-limit"));
            for (int delivery = 1; delivery <= 2; delivery++) {
                List<ConsumerRecord<String, String>> got = pollFor(c, 1);
                assertEquals(1, got.size(), "delivery " + delivery);
                assertEquals((short) delivery, got.get(0).deliveryCount().orElseThrow());
                c.acknowledge(got.get(0), AcknowledgeType.RELEASE);
                c.commitSync(Duration.ofSeconds(30));
            }
            assertTrue(c.poll(Duration.ofSeconds(2)).isEmpty(), "no third delivery");
        }
        JsonPath dlq = deadLetters("share-limit", "sg-limit");
        assertEquals(1, dlq.getInt("total"));
        assertTrue(dlq.getString("messages[0].errorMessage").contains("delivery count limit 2"), dlq.prettify());
        assertEquals(0, committed("share-limit", 0, "sg-limit"));

        // replayed over HTTP, the dead letter is a record again: the share group gets it with its key and value
        given().post("/api/v1/dlq/" + dlq.getString("messages[0].id") + "/replay").then().statusCode(200);
        try (KafkaShareConsumer<String, String> c = consumer("sg-limit", 10)) {
            c.subscribe(List.of("share-limit"));
            List<ConsumerRecord<String, String>> again = pollFor(c, 1);
            assertEquals(1, again.size());
            assertEquals(1, again.get(0).offset(), "appended at the tail");
            assertEquals("k0", again.get(0).key());
            assertEquals("v0", again.get(0).value());
            assertEquals((short) 1, again.get(0).deliveryCount().orElseThrow(), "a new record's first delivery");
            c.acknowledge(again.get(0), AcknowledgeType.ACCEPT);
            c.commitSync(Duration.ofSeconds(30));
        }
        assertEquals(1, committed("share-limit", 0, "sg-limit"));
        assertEquals(0, deadLetters("share-limit", "sg-limit").getInt("total"), "the replay took it out");
    }

    @Test
    void recordsLockedByAMemberThatStoppedComeBackAfterTheLockDuration() throws Exception {
        prepare("share-lock", 1, "sg-lock", 2_000, 5);
        produce("share-lock", 5);
        try (KafkaShareConsumer<String, String> stuck = consumer("sg-lock", 100);
                KafkaShareConsumer<String, String> other = consumer("sg-lock", 100)) {
            stuck.subscribe(List.of("share-lock"));
            assertEquals(5, pollFor(stuck, 5).size(), "the first member holds all five");
            // it never acknowledges them (and polls no more): the other member gets them once the locks expire
            other.subscribe(List.of("share-lock"));
            long start = System.nanoTime();
            List<ConsumerRecord<String, String>> got = pollFor(other, 5);
            assertEquals(5, got.size());
            for (ConsumerRecord<String, String> r : got) {
                assertEquals((short) 2, r.deliveryCount().orElseThrow(), "a second delivery");
                other.acknowledge(r, AcknowledgeType.ACCEPT);
            }
            other.commitSync(Duration.ofSeconds(30));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(1_000),
                    "not before the lock could expire");
        }
        assertEquals(4, committed("share-lock", 0, "sg-lock"));
    }

    @Test
    void moreMembersThanPartitionsConsumeEveryRecordExactlyOnce() throws Exception {
        prepare("share-many", 2, "sg-many", 30_000, 5);
        produce("share-many", 400);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        AtomicInteger total = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<KafkaShareConsumer<String, String>> consumers = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int m = 0; m < 3; m++) {
                runs.add(pool.submit(() -> {
                    try (KafkaShareConsumer<String, String> c = consumer("sg-many", 20)) {
                        consumers.add(c);
                        c.subscribe(List.of("share-many"));
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                        while (total.get() < 400 && System.nanoTime() < deadline) {
                            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                                seen.merge(r.partition() + "/" + r.offset(), 1, Integer::sum);
                                total.incrementAndGet();
                                c.acknowledge(r, AcknowledgeType.ACCEPT);
                            }
                            c.commitSync(Duration.ofSeconds(30));
                        }
                    }
                    return null;
                }));
            }
            try (Admin a = admin()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                ShareGroupDescription d;
                do {
                    d = describe(a, "sg-many");
                } while ((d == null || d.members().size() < 3) && System.nanoTime() < deadline);
                assertEquals(3, d.members().size(), "three members");
                Map<Integer, Integer> owners = new HashMap<>();
                d.members().forEach(m -> m.assignment().topicPartitions()
                        .forEach(tp -> owners.merge(tp.partition(), 1, Integer::sum)));
                assertEquals(2, owners.size(), "both partitions assigned");
                assertEquals(3, owners.values().stream().mapToInt(Integer::intValue).sum(),
                        "every member has a partition, one partition has two members");
            }
            for (Future<?> f : runs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(400, seen.size(), "every record");
        assertFalse(seen.values().stream().anyMatch(n -> n > 1), "none twice");
        assertEquals(398, committed("share-many", 0, "sg-many") + committed("share-many", 1, "sg-many"),
                "both cursors at their partition's last offset (400 records over two partitions)");
        StorageInvariants.assertHold(ds);
    }

    @Test
    void httpPopsOfTheGroupNameAndTheShareGroupShareOneLeasePerPartition() throws Exception {
        prepare("share-http", 1, "sg-http", 30_000, 5);
        produce("share-http", 3);
        String pop = "/api/v1/pop/queue/share-http?consumerGroup=sg-http&batch=10&wait=false";
        try (KafkaShareConsumer<String, String> c = consumer("sg-http", 100)) {
            c.subscribe(List.of("share-http"));
            List<ConsumerRecord<String, String>> held = pollFor(c, 3);
            assertEquals(3, held.size());
            given().get(pop).then().statusCode(204); // the share group holds the partition's lease
            held.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync(Duration.ofSeconds(30));
        }
        produce("share-http", 2);
        // nothing in flight: the lease is free, and an HTTP consumer of the group goes on after what was accepted
        JsonPath popped = given().get(pop).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(3, 4), popped.getList("messages.offset", Integer.class));
        try (KafkaShareConsumer<String, String> c = consumer("sg-http", 100)) {
            c.subscribe(List.of("share-http"));
            assertTrue(c.poll(Duration.ofSeconds(3)).isEmpty(), "the HTTP consumer's lease holds the partition");
        }
        assertEquals(2, committed("share-http", 0, "sg-http"));
        StorageInvariants.assertHold(ds);
    }

    @Test
    void offsetsAreDescribedAlteredAndDeletedWhileTheGroupIsEmpty() throws Exception {
        prepare("share-offsets", 1, "sg-offsets", 30_000, 5);
        produce("share-offsets", 6);
        TopicPartition tp = new TopicPartition("share-offsets", 0);
        try (KafkaShareConsumer<String, String> c = consumer("sg-offsets", 100); Admin a = admin()) {
            c.subscribe(List.of("share-offsets"));
            List<ConsumerRecord<String, String>> got = pollFor(c, 6);
            got.forEach(r -> c.acknowledge(r, r.offset() < 4 ? AcknowledgeType.ACCEPT : AcknowledgeType.RELEASE));
            c.commitSync(Duration.ofSeconds(30));
            var refused = a.alterShareGroupOffsets("sg-offsets", Map.of(tp, 0L)).all();
            var e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> refused.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof org.apache.kafka.common.errors.GroupNotEmptyException, e.toString());
        }
        try (Admin a = admin()) {
            var info = a.listShareGroupOffsets(Map.of("sg-offsets", new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo("sg-offsets").get(30, TimeUnit.SECONDS).get(tp);
            assertEquals(4, info.startOffset(), "the first record not done");
            assertEquals(2L, info.lag().orElseThrow());
            a.alterShareGroupOffsets("sg-offsets", Map.of(tp, 1L)).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaShareConsumer<String, String> c = consumer("sg-offsets", 100)) {
            c.subscribe(List.of("share-offsets"));
            List<ConsumerRecord<String, String>> got = pollFor(c, 5);
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L), got.stream().map(ConsumerRecord::offset).toList(),
                    "from the altered start offset");
            got.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync(Duration.ofSeconds(30));
        }
        try (Admin a = admin()) {
            a.deleteShareGroupOffsets("sg-offsets", java.util.Set.of("share-offsets")).all()
                    .get(30, TimeUnit.SECONDS);
            var after = a.listShareGroupOffsets(Map.of("sg-offsets", new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo("sg-offsets").get(30, TimeUnit.SECONDS);
            assertFalse(after.containsKey(tp) && after.get(tp) != null && after.get(tp).startOffset() >= 0,
                    "no offset left: " + after);
        }
        assertEquals(Long.MIN_VALUE, committed("share-offsets", 0, "sg-offsets"), "its cursor is gone");
    }

    @Test
    void kafkaShareGroupsDescribesTheGroupAndResetsItsOffsets() throws Exception {
        prepare("share-cli", 2, "sg-cli", 30_000, 5);
        produce("share-cli", 10);
        String[] base = {"--bootstrap-server", bootstrap(), "--group", "sg-cli"};
        try (KafkaShareConsumer<String, String> c = consumer("sg-cli", 100)) {
            c.subscribe(List.of("share-cli"));
            int done = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (done < 10 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    c.acknowledge(r, AcknowledgeType.ACCEPT);
                    done++;
                }
                c.commitSync(Duration.ofSeconds(30));
            }
            assertEquals(10, done);
            KafkaTool.Run members = KafkaTool.run(ShareGroupCommand::main, concat(base, "--describe", "--members"));
            assertEquals(0, members.exit(), members.toString());
            assertTrue(members.out().contains("share-cli:0,1") || members.out().contains("share-cli:0"),
                    members.toString());
        }
        KafkaTool.Run offsets = KafkaTool.run(ShareGroupCommand::main, concat(base, "--describe"));
        assertEquals(0, offsets.exit(), offsets.toString());
        assertTrue(offsets.out().contains("share-cli"), offsets.toString());
        KafkaTool.Run reset = KafkaTool.run(ShareGroupCommand::main, concat(base, "--reset-offsets", "--topic",
                "share-cli", "--to-earliest", "--execute"));
        assertEquals(0, reset.exit(), reset.toString());
        try (Admin a = admin()) {
            var info = a.listShareGroupOffsets(Map.of("sg-cli", new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo("sg-cli").get(30, TimeUnit.SECONDS);
            assertEquals(0, info.get(new TopicPartition("share-cli", 0)).startOffset(), info.toString());
            assertEquals(0, info.get(new TopicPartition("share-cli", 1)).startOffset(), info.toString());
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void shareGroupsAreListedByTypeAndDeletedOnceEmptyAndTheirNameIsNoOtherGroupsWhileLive() throws Exception {
        prepare("share-list", 1, "sg-list", 30_000, 5);
        produce("share-list", 2);
        try (KafkaShareConsumer<String, String> c = consumer("sg-list", 100); Admin a = admin()) {
            c.subscribe(List.of("share-list"));
            List<ConsumerRecord<String, String>> got = pollFor(c, 2);
            got.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync(Duration.ofSeconds(30));
            var listed = a.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS);
            var mine = listed.stream().filter(g -> g.groupId().equals("sg-list")).findFirst().orElseThrow();
            assertEquals(org.apache.kafka.common.GroupType.SHARE, mine.type().orElseThrow());
            assertEquals(org.apache.kafka.common.GroupState.STABLE, mine.groupState().orElseThrow());
            var refused = a.deleteShareGroups(List.of("sg-list")).all();
            var e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> refused.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof org.apache.kafka.common.errors.GroupNotEmptyException, e.toString());
            // a classic consumer may not take the live share group's name
            Properties p = consumerProperties(bootstrap(), "sg-list");
            try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> classic =
                    new org.apache.kafka.clients.consumer.KafkaConsumer<>(p, new StringDeserializer(),
                            new StringDeserializer())) {
                classic.subscribe(List.of("share-list"));
                var thrown = org.junit.jupiter.api.Assertions.assertThrows(org.apache.kafka.common.KafkaException.class,
                        () -> classic.poll(Duration.ofSeconds(10)));
                assertTrue(thrown.toString().contains("InconsistentGroupProtocol"), thrown.toString());
            }
        }
        try (Admin a = admin()) {
            var listed = a.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS);
            assertEquals(org.apache.kafka.common.GroupState.EMPTY, listed.stream()
                    .filter(g -> g.groupId().equals("sg-list")).findFirst().orElseThrow().groupState().orElseThrow());
            a.deleteShareGroups(List.of("sg-list")).all().get(30, TimeUnit.SECONDS);
            assertTrue(a.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS).stream()
                    .noneMatch(g -> g.groupId().equals("sg-list")), "deleted");
        }
        assertEquals(Long.MIN_VALUE, committed("share-list", 0, "sg-list"), "its cursor is gone");
    }

    /** The group's description; null while it does not exist yet (its first member has not joined). */
    private static ShareGroupDescription describe(Admin a, String group) throws Exception {
        try {
            return a.describeShareGroups(List.of(group)).describedGroups().get(group).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    @Test
    void groupConfigsAreDescribedAndAnUnservedOneIsRefusedByName() throws Exception {
        try (Admin a = admin()) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, "sg-configs");
            a.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                    new ConfigEntry("share.record.lock.duration.ms", "15000"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
            var described = a.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
            assertEquals("15000", described.get("share.record.lock.duration.ms").value());
            assertEquals("latest", described.get("share.auto.offset.reset").value(), "the broker's default");
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG,
                    described.get("share.auto.offset.reset").source());
            var refused = a.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                    new ConfigEntry("share.isolation.level", "read_committed"), AlterConfigOp.OpType.SET)))).all();
            var e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> refused.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof InvalidConfigurationException, e.toString());
            assertTrue(e.getCause().getMessage().contains("share.isolation.level"), e.getCause().getMessage());
            var outOfRange = a.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                    new ConfigEntry("share.delivery.count.limit", "50"), AlterConfigOp.OpType.SET)))).all();
            e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> outOfRange.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("between 2 and 10"), e.getCause().getMessage());
        }
    }

    private int correlation;

    private ShareGroupHeartbeatResponseData heartbeat(Socket s, String group, String member, int epoch)
            throws Exception {
        return KafkaFrames.call(s, ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, ++correlation,
                new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch)
                        .setSubscribedTopicNames(epoch == 0 ? List.of() : null));
    }

    /** A ShareFetch naming no partition and waiting for nothing: opens, uses or closes the member's session. */
    private Errors shareFetch(Socket s, String group, String member, int epoch) throws Exception {
        ShareFetchResponseData r = KafkaFrames.call(s, ApiKeys.SHARE_FETCH, (short) 1, ++correlation,
                new ShareFetchRequestData().setGroupId(group).setMemberId(member).setShareSessionEpoch(epoch)
                        .setMaxWaitMs(0).setMaxBytes(1 << 20).setMaxRecords(10).setBatchSize(10));
        return Errors.forCode(r.errorCode());
    }

    @Test
    void aShareSessionIsOnlyOpenedForAMemberAndEndsWhenItLeaves() throws Exception {
        try (Socket s = KafkaFrames.connect(listener.port()); Admin a = admin()) {
            // a member id that never joined: refused as a session the broker does not hold, and none is left
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-session", "stranger", 0));
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-session", "stranger", 1));
            assertEquals(null, describe(a, "sg-session"), "no group either");

            assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-session", "member", 0).errorCode()));
            assertEquals(Errors.NONE, shareFetch(s, "sg-session", "member", 0));
            assertEquals(Errors.NONE, shareFetch(s, "sg-session", "member", 1));
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-session", "stranger", 0),
                    "a group with members takes no session of a stranger either");

            ShareGroupHeartbeatResponseData left = heartbeat(s, "sg-session", "member", -1);
            assertEquals(Errors.NONE, Errors.forCode(left.errorCode()));
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-session", "member", 2),
                    "the session ended with its member");
        }
    }

    @Test
    void anExpiredMemberLosesItsSessionAndItsEmptyGroupIsForgottenButNotWhatItStored() throws Exception {
        try (Socket s = KafkaFrames.connect(listener.port()); Admin a = admin()) {
            ShareGroupHeartbeatResponseData joined = heartbeat(s, "sg-expiry", "late", 0);
            assertEquals(Errors.NONE, Errors.forCode(joined.errorCode()));
            assertEquals(Errors.NONE, shareFetch(s, "sg-expiry", "late", 0));
            assertTrue(describe(a, "sg-expiry").groupEpoch() > 0, "the group in memory");

            groups.tick(TimeUnit.HOURS.toMillis(1)); // as if the member had not heartbeated for an hour
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-expiry", "late", 1),
                    "its session ended with it");
            assertEquals(Errors.UNKNOWN_MEMBER_ID,
                    Errors.forCode(heartbeat(s, "sg-expiry", "late", joined.memberEpoch()).errorCode()));
            ShareGroupDescription d = describe(a, "sg-expiry");
            assertEquals(org.apache.kafka.common.GroupState.EMPTY, d.groupState(), "it began: its row stays");
            assertEquals(0, d.groupEpoch(), "nothing of it in memory");
            assertTrue(a.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS).stream()
                    .anyMatch(g -> g.groupId().equals("sg-expiry")), "listed as it began");

            // the member joins again and has a session as before
            assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-expiry", "late", 0).errorCode()));
            assertEquals(Errors.NONE, shareFetch(s, "sg-expiry", "late", 0));
            assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-expiry", "late", -1).errorCode()));
        }
    }

    @Test
    void aHeartbeatThatJoinsNoMemberLeavesNoGroupBehind() throws Exception {
        try (Socket s = KafkaFrames.connect(listener.port()); Admin a = admin()) {
            assertEquals(Errors.UNKNOWN_MEMBER_ID, Errors.forCode(heartbeat(s, "sg-ghost", "nobody", 7).errorCode()));
            ShareGroupHeartbeatResponseData leave = heartbeat(s, "sg-ghost", "nobody", -1);
            assertEquals(Errors.NONE, Errors.forCode(leave.errorCode()));
            assertEquals(-1, leave.memberEpoch());
            assertEquals(null, describe(a, "sg-ghost"), "GROUP_ID_NOT_FOUND, as Apache Kafka answers for a group"
                    + " that does not exist");
            assertTrue(a.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .noneMatch(g -> g.groupId().equals("sg-ghost")), "not listed");

            // a join and a leave: the group began (kept in PostgreSQL), its empty copy in memory goes with the timer
            assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-brief", "once", 0).errorCode()));
            assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-brief", "once", -1).errorCode()));
            groups.tick(0);
            ShareGroupDescription d = describe(a, "sg-brief");
            assertEquals(org.apache.kafka.common.GroupState.EMPTY, d.groupState());
            assertEquals(0, d.groupEpoch(), "forgotten in memory");
        }
    }

    @Test
    void theBrokerHoldsAtMostItsLimitOfShareSessions() throws Exception {
        List<String> members = new ArrayList<>();
        try (Socket s = KafkaFrames.connect(listener.port())) {
            try {
                String refused = null;
                List<String> opened = new ArrayList<>();
                for (int i = 0; i <= MAX_SESSIONS && refused == null; i++) {
                    String m = "m" + i;
                    members.add(m);
                    assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-full", m, 0).errorCode()));
                    Errors e = shareFetch(s, "sg-full", m, 0);
                    if (e == Errors.SHARE_SESSION_LIMIT_REACHED) {
                        refused = m;
                    } else {
                        assertEquals(Errors.NONE, e);
                        opened.add(m);
                    }
                }
                assertTrue(refused != null && opened.size() <= MAX_SESSIONS, "refused once the broker held "
                        + MAX_SESSIONS + " sessions: " + opened);
                assertEquals(Errors.SHARE_SESSION_NOT_FOUND, shareFetch(s, "sg-full", refused, 1), "none left");
                // a member that leaves makes room
                assertEquals(Errors.NONE, Errors.forCode(heartbeat(s, "sg-full", opened.get(0), -1).errorCode()));
                assertEquals(Errors.NONE, shareFetch(s, "sg-full", refused, 0));
            } finally {
                for (String m : members) {
                    heartbeat(s, "sg-full", m, -1);
                }
            }
        }
    }
}
