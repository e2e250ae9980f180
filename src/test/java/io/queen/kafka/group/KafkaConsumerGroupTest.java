package io.queen.kafka.group;

import io.queen.kafka.KafkaListenerClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Sql;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real Java client against the listener: a group of three {@code KafkaConsumer}s subscribed to a six-partition
 * topic, with each of the client-side assignors. One member is killed (closed without leaving: only the session
 * timeout can evict it), then one leaves cleanly; the survivor ends up with every partition. Every record is
 * delivered, each consumer reads each partition it holds in order and without gaps, and the committed offsets are
 * exact, read back through the AdminClient (OffsetFetch) and through Queen's consumer-group route (lag).
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaConsumerGroupTest extends KafkaListenerClients {
    static final int PARTITIONS = 6;
    static final int FIRST = 30;
    static final int SECOND = 20;
    static final int SESSION_MS = GroupConsumer.SESSION_MS;

    @Inject
    AgroalDataSource ds;




    void produce(String topic, int partitions, int from, int count) throws Exception {
        GroupConsumer.produce(bootstrap(), topic, partitions, from, count);
    }

    /** Waits for {@code condition}; one that fails to evaluate (a group not created yet) is not met yet. */
    static void await(String what, BooleanSupplier condition) throws Exception {
        Await.until(what, () -> met(condition), Duration.ofSeconds(60));
    }

    static boolean met(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (IllegalStateException notYet) {
            return false;
        }
    }

    ConsumerGroupDescription describe(Admin admin, String group) {
        try {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    Map<Integer, Long> committed(Admin admin, String group) {
        try {
            Map<Integer, Long> out = new HashMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .forEach((tp, o) -> out.put(tp.partition(), o == null ? -1 : o.offset()));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<Integer, Long> all(long offset) {
        Map<Integer, Long> out = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.put(p, offset);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"range", "roundrobin", "cooperative-sticky"})
    void aGroupOfThreeSurvivesAKilledMemberAndALeavingOneWithEveryRecordOnceCommitted(String assignor)
            throws Exception {
        String topic = "kg-e2e-" + assignor;
        String group = "e2e-" + assignor;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
            Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
            String strategy = switch (assignor) {
                case "range" -> "org.apache.kafka.clients.consumer.RangeAssignor";
                case "roundrobin" -> "org.apache.kafka.clients.consumer.RoundRobinAssignor";
                default -> "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
            };
            GroupConsumer a = new GroupConsumer(bootstrap(), "a", group, strategy, topic, deliveries, null);
            GroupConsumer b = new GroupConsumer(bootstrap(), "b", group, strategy, topic, deliveries, null);
            GroupConsumer c = new GroupConsumer(bootstrap(), "c", group, strategy, topic, deliveries, null);
            a.start();
            b.start();
            c.start();
            await("three members sharing the partitions", () -> {
                ConsumerGroupDescription d = describe(admin, group);
                return d.groupState() == GroupState.STABLE && d.members().size() == 3
                        && d.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
            });
            assertEquals(assignor, describe(admin, group).partitionAssignor());
            // records only now: each member has partitions of its own to read (a first member alone would
            // otherwise read everything before the others join)
            produce(topic, PARTITIONS, 0, FIRST);
            await("c consuming", () -> deliveries.stream().anyMatch(d -> d.consumer().equals("c")));

            // c dies: no LeaveGroup, so it stays a member until its session times out
            long killedAt = System.nanoTime();
            c.stopAndJoin(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP);
            assertEquals(3, describe(admin, group).members().size(), "a killed member is still in the group");
            await("c evicted", () -> describe(admin, group).members().size() == 2);
            assertTrue(System.nanoTime() - killedAt >= TimeUnit.MILLISECONDS.toNanos(SESSION_MS - 500),
                    "evicted by its session timeout");
            produce(topic, PARTITIONS, FIRST, SECOND);

            // b leaves cleanly: a takes everything at once, no session timeout involved
            await("b consuming", () -> deliveries.stream().anyMatch(d -> d.consumer().equals("b")));
            b.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            await("a alone with every partition", () -> {
                ConsumerGroupDescription d = describe(admin, group);
                return d.groupState() == GroupState.STABLE && d.members().size() == 1
                        && d.members().iterator().next().assignment().topicPartitions().size() == PARTITIONS;
            });
            await("every record committed", () -> committed(admin, group).equals(all(FIRST + SECOND)));
            a.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            for (GroupConsumer m : List.of(a, b, c)) {
                assertEquals(null, m.failure, m.getName() + " failed: " + m.failure);
            }
            assertEquals(GroupState.EMPTY, describe(admin, group).groupState());

            // every record delivered; within one assignment a consumer reads a partition in order, without gaps
            GroupConsumer.assertEveryRecordInOrder(deliveries, PARTITIONS, FIRST + SECOND);

            // the committed offsets are the Queen cursors: offset n committed = cursor n - 1, lag 0
            JsonNode view = Api.json(Http.get("/api/v1/consumer-groups/" + group).body());
            JsonNode parts = view.get(topic).get("partitions");
            assertEquals(PARTITIONS, parts.size());
            for (JsonNode p : parts) {
                assertEquals(FIRST + SECOND - 1, p.get("committedOffset").asLong(), p.toString());
                assertEquals(0, p.get("offsetLag").asLong(), p.toString());
            }
        }
    }

    /**
     * A static member (group.instance.id) stopped without leaving and started again under the same instance id takes
     * its own place: the group never holds two members, and the new process consumes from the old one's commits.
     */
    @Test
    void aRestartedStaticMemberTakesItsOwnPlaceAndContinuesFromItsCommits() throws Exception {
        String topic = "kg-static";
        String group = "static";
        String range = "org.apache.kafka.clients.consumer.RangeAssignor";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
            produce(topic, 3, 0, 10);
            Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
            GroupConsumer first = new GroupConsumer(bootstrap(), "first", group, range, topic, deliveries, "s-1");
            first.start();
            await("first consuming", () -> !deliveries.isEmpty());
            first.stopAndJoin(CloseOptions.GroupMembershipOperation.DEFAULT); // static: stays in the group
            assertEquals(1, describe(admin, group).members().size());

            GroupConsumer second = new GroupConsumer(bootstrap(), "second", group, range, topic, deliveries, "s-1");
            second.start();
            await("every record committed", () -> committed(admin, group).equals(Map.of(0, 10L, 1, 10L, 2, 10L)));
            ConsumerGroupDescription d = describe(admin, group);
            assertEquals(1, d.members().size());
            assertEquals("s-1", d.members().iterator().next().groupInstanceId().orElseThrow());
            assertEquals("second", d.members().iterator().next().clientId());
            second.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            assertEquals(null, first.failure);
            assertEquals(null, second.failure);
            assertEquals(GroupState.EMPTY, describe(admin, group).groupState());
            Map<Integer, TreeSet<Long>> seen = new HashMap<>();
            deliveries.forEach(x -> seen.computeIfAbsent(x.partition(), k -> new TreeSet<>()).add(x.offset()));
            for (int p = 0; p < 3; p++) {
                assertEquals(10, seen.get(p).size(), "partition " + p);
            }
        }
    }

    /** Offsets set by the AdminClient (commits without membership) read back exactly, as lag over HTTP too. */
    @Test
    void adminCommittedOffsetsReadBackExactlyAndShowAsQueenLag() throws Exception {
        String topic = "kg-admin";
        String group = "admin-set";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
            produce(topic, 3, 0, 10);
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(7),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(0, "metadata is dropped"),
                    new TopicPartition(topic, 2), new OffsetAndMetadata(10))).all().get();
            assertEquals(Map.of(0, 7L, 1, 0L, 2, 10L), committed(admin, group));
            Map<String, Long> lag = new HashMap<>();
            Api.json(Http.get("/api/v1/consumer-groups/" + group).body()).get(topic).get("partitions")
                    .forEach(p -> lag.put(p.get("partition").asText(), p.get("offsetLag").asLong()));
            assertEquals(Map.of("0", 3L, "1", 10L, "2", 0L), lag);
            assertTrue(admin.listGroups().all().get().stream().anyMatch(g -> g.groupId().equals(group)));

            admin.deleteConsumerGroups(List.of(group)).all().get();
            assertEquals(Map.of(), committed(admin, group));
            assertEquals("{}", Http.get("/api/v1/consumer-groups/" + group).body());
        }
    }
    /**
     * A consumer's asynchronous commits that queue up behind one held on a lock (a cursor row locked by another
     * transaction) are served once it is released: every one answered without error, in the order sent, and the group
     * holds the offsets of the last one, a partition moved back by a later commit included.
     */
    @Test
    void asynchronousCommitsQueuedBehindABlockedOneAreEachAnsweredInOrderAndTheLastHolds() throws Exception {
        String topic = "kg-async";
        String group = "async-commits";
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
            produce(topic, 2, 0, 30);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(bootstrap(), group),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.assign(List.of(p0, p1));
                consumer.commitSync(Map.of(p0, new OffsetAndMetadata(1), p1, new OffsetAndMetadata(1)));
                List<Long> answered = new ArrayList<>();
                List<Exception> failures = new ArrayList<>();
                try (Connection held = ds.getConnection()) {
                    held.setAutoCommit(false);
                    try (Statement st = held.createStatement()) {
                        st.execute("SELECT 1 FROM queen.log_consumers WHERE consumer_group = '" + group + "' FOR UPDATE");
                    }
                    for (long offset = 2; offset <= 21; offset++) {
                        long sent = offset;
                        // the last commit moves partition 1 back to 5
                        consumer.commitAsync(Map.of(p0, new OffsetAndMetadata(offset),
                                p1, new OffsetAndMetadata(offset == 21 ? 5 : offset)), (offsets, e) -> {
                                    answered.add(sent);
                                    if (e != null) {
                                        failures.add(e);
                                    }
                                });
                        consumer.poll(Duration.ZERO);
                    }
                    await("the first commit waits on the held lock", () -> Sql.count(ds,
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                    + " AND wait_event_type = 'Lock'") > 0);
                    assertEquals(List.of(), answered, "no commit was answered while the lock was held");
                    held.rollback();
                }
                Await.until("every commit answered", () -> {
                    consumer.poll(Duration.ofMillis(50));
                    return answered.size() == 20;
                }, Duration.ofSeconds(60));
                assertEquals(List.of(), failures);
                List<Long> sent = new ArrayList<>();
                for (long offset = 2; offset <= 21; offset++) {
                    sent.add(offset);
                }
                assertEquals(sent, answered);
            }
            assertEquals(Map.of(0, 21L, 1, 5L), committed(admin, group));
        }
    }
}
