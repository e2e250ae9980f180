package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaFrames;
import io.queen.kafka.KafkaListenerClients;
import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.Http;
import io.queen.testing.FreshDatabase;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real Java client with {@code group.protocol=consumer} (KIP-848) against the listener: the broker assigns the
 * partitions, members reconcile through their heartbeats, and the AdminClient sees consumer-type groups. The broker
 * runs the test profile's consumer-group timings (session 3 s, heartbeat 300 ms).
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaConsumerProtocolTest extends KafkaListenerClients {
    static final int PARTITIONS = 6;
    static final int SESSION_MS = 3000;

    GroupConsumer member(String name, String group, String assignor, String topic,
            Collection<GroupConsumer.Delivery> deliveries, String instanceId) {
        return GroupConsumer.consumerProtocol(bootstrap(), name, group, assignor, topic, null, deliveries, instanceId);
    }

    static void await(String what, BooleanSupplier condition) throws Exception {
        Await.until(what, () -> {
            try {
                return condition.getAsBoolean();
            } catch (IllegalStateException notYet) {
                return false;
            }
        }, Duration.ofSeconds(60));
    }

    static ConsumerGroupDescription describe(Admin admin, String group) {
        try {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each member's client id → its assigned partitions. */
    static Map<String, Set<TopicPartition>> assignments(ConsumerGroupDescription d) {
        Map<String, Set<TopicPartition>> out = new HashMap<>();
        for (MemberDescription m : d.members()) {
            out.put(m.clientId(), new TreeSet<>(java.util.Comparator.comparing(TopicPartition::toString)));
            out.get(m.clientId()).addAll(m.assignment().topicPartitions());
        }
        return out;
    }

    /** Stable, with {@code members} members holding {@code partitions} partitions between them, none twice. */
    static boolean settled(ConsumerGroupDescription d, int members, int partitions) {
        List<TopicPartition> all = d.members().stream().flatMap(m -> m.assignment().topicPartitions().stream())
                .toList();
        return d.groupState() == GroupState.STABLE && d.members().size() == members && all.size() == partitions
                && new java.util.HashSet<>(all).size() == partitions;
    }

    @Test
    void threeMembersReadSixHundredRecordsOnceThroughAJoinAndALeave() throws Exception {
        String topic = "kc-e2e";
        String group = "kc-e2e";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
            Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
            GroupConsumer a = member("a", group, null, topic, deliveries, null);
            GroupConsumer b = member("b", group, null, topic, deliveries, null);
            GroupConsumer c = member("c", group, null, topic, deliveries, null);
            a.start();
            b.start();
            c.start();
            await("three members with two partitions each", () -> {
                ConsumerGroupDescription d = describe(admin, group);
                return settled(d, 3, PARTITIONS)
                        && assignments(d).values().stream().allMatch(s -> s.size() == 2);
            });
            ConsumerGroupDescription d = describe(admin, group);
            assertEquals(GroupType.CONSUMER, d.type());
            assertEquals("uniform", d.partitionAssignor());
            GroupListing listed = admin.listGroups().all().get().stream().filter(g -> g.groupId().equals(group))
                    .findFirst().orElseThrow();
            assertEquals(GroupType.CONSUMER, listed.type().orElseThrow());
            assertEquals("consumer", listed.protocol());
            // the console's members view: the consumer-protocol group with each member's partitions
            JsonNode kafka = Api.json(Http.get("/api/v1/consumer-groups/" + group + "/members").body()).get("kafka");
            assertEquals("consumer", kafka.get("protocolType").asText(), kafka.toString());
            assertEquals(3, kafka.get("members").size(), kafka.toString());
            kafka.get("members").forEach(m -> assertEquals(2, m.get("assignments").size(), m.toString()));

            GroupConsumer.produce(bootstrap(), topic, PARTITIONS, 0, 50);
            await("c consuming", () -> deliveries.stream().anyMatch(x -> x.consumer().equals("c")));

            // a fourth member joins: the others give up only what it takes
            Map<String, Set<TopicPartition>> before = assignments(describe(admin, group));
            GroupConsumer e = member("d", group, null, topic, deliveries, null);
            e.start();
            await("four members sharing six partitions", () -> settled(describe(admin, group), 4, PARTITIONS));
            Map<String, Set<TopicPartition>> after = assignments(describe(admin, group));
            for (String m : List.of("a", "b", "c")) {
                assertTrue(before.get(m).containsAll(after.get(m)), m + " kept part of " + before.get(m) + ": "
                        + after.get(m));
            }

            // a leaves: its partitions go to the others, who keep their own
            a.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            await("three members again", () -> settled(describe(admin, group), 3, PARTITIONS));
            Map<String, Set<TopicPartition>> last = assignments(describe(admin, group));
            for (String m : List.of("b", "c", "d")) {
                assertTrue(last.get(m).containsAll(after.get(m)), m + " kept " + after.get(m) + ": " + last.get(m));
            }
            GroupConsumer.produce(bootstrap(), topic, PARTITIONS, 50, 50);
            await("every record committed", () -> GroupConsumer.committed(admin, group).equals(all(100)));
            for (GroupConsumer m : List.of(b, c, e)) {
                m.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            }
            for (GroupConsumer m : List.of(a, b, c, e)) {
                assertEquals(null, m.failure, m.getName() + " failed: " + m.failure);
            }
            GroupConsumer.assertEveryRecordInOrder(deliveries, PARTITIONS, 100);
            assertEquals(600, deliveries.size(), "each record read once");
        }
    }

    static Map<Integer, Long> all(long offset) {
        Map<Integer, Long> out = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.put(p, offset);
        }
        return out;
    }

    /** Two topics of three partitions, two members: range gives per topic 2 + 1, uniform 3 and 3 overall. */
    @Test
    void rangeAssignsPerTopicAndUniformOverall() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("kr-a", 3, (short) 1), new NewTopic("kr-b", 3, (short) 1)))
                    .all().get();
            for (String assignor : List.of("range", "uniform")) {
                String group = "kr-" + assignor;
                Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
                SubscriptionPattern both = new SubscriptionPattern("kr-[ab]");
                GroupConsumer x = GroupConsumer.consumerProtocol(bootstrap(), "x", group, assignor, null, both,
                        deliveries, null);
                GroupConsumer y = GroupConsumer.consumerProtocol(bootstrap(), "y", group, assignor, null, both,
                        deliveries, null);
                x.start();
                y.start();
                await(assignor + ": two members sharing six partitions", () -> settled(describe(admin, group), 2, 6));
                ConsumerGroupDescription d = describe(admin, group);
                assertEquals(assignor, d.partitionAssignor());
                List<Integer> sizes = assignments(d).values().stream().map(Set::size).sorted().toList();
                assertEquals(assignor.equals("range") ? List.of(2, 4) : List.of(3, 3), sizes, assignor);
                x.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
                y.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
                assertEquals(null, x.failure);
                assertEquals(null, y.failure);
            }
        }
    }

    /** A static member stopped without leaving keeps its partitions; restarted, it gets the same ones back. */
    @Test
    void aRestartedStaticMemberGetsItsPartitionsBack() throws Exception {
        String topic = "kc-static";
        String group = "kc-static";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
            Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
            GroupConsumer s1 = member("s1", group, null, topic, deliveries, "i-1");
            GroupConsumer other = member("other", group, null, topic, deliveries, null);
            s1.start();
            other.start();
            await("two members", () -> settled(describe(admin, group), 2, PARTITIONS));
            Set<TopicPartition> held = assignments(describe(admin, group)).get("s1");
            Set<TopicPartition> others = assignments(describe(admin, group)).get("other");
            s1.stopAndJoin(CloseOptions.GroupMembershipOperation.DEFAULT); // static: leaves for now (-2)
            ConsumerGroupDescription gone = describe(admin, group);
            assertEquals(2, gone.members().size(), "the static member stays in the group");
            assertEquals(others, assignments(gone).get("other"), "nobody takes its partitions");

            GroupConsumer s2 = member("s2", group, null, topic, deliveries, "i-1");
            s2.start();
            await("the instance back", () -> {
                ConsumerGroupDescription d = describe(admin, group);
                return settled(d, 2, PARTITIONS) && assignments(d).containsKey("s2");
            });
            assertEquals(held, assignments(describe(admin, group)).get("s2"));
            s2.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            other.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            for (GroupConsumer m : List.of(s1, s2, other)) {
                assertEquals(null, m.failure, m.getName() + " failed: " + m.failure);
            }
        }
    }

    /**
     * A member that stops heartbeating without leaving (a process killed: here a member speaking the protocol on a
     * raw connection, which simply goes silent) is evicted after the session timeout, and its partitions move.
     */
    @Test
    void aSilentMemberIsEvictedAfterTheSessionTimeout() throws Exception {
        String topic = "kc-kill";
        String group = "kc-kill";
        try (Admin admin = admin(); Socket s = KafkaFrames.connect(listener.port())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
            RawMember k = new RawMember(s, group, List.of(topic));
            k.heartbeat();
            assertEquals(1, k.epoch);
            assertEquals(PARTITIONS, k.owned.get(0).partitions().size(), "alone, k is given every partition");
            GroupConsumer a = member("a", group, null, topic, new ConcurrentLinkedQueue<>(), null);
            a.start();
            // k heartbeats as a client does (confirming its revocation with its owned partitions) until settled
            Await.until("a and k sharing the partitions", () -> {
                k.heartbeat();
                return settled(describe(admin, group), 2, PARTITIONS);
            }, Duration.ofSeconds(60));
            long silentSince = System.nanoTime();
            await("k evicted, a holding everything", () -> settled(describe(admin, group), 1, PARTITIONS));
            assertTrue(System.nanoTime() - silentSince >= TimeUnit.MILLISECONDS.toNanos(SESSION_MS - 500),
                    "evicted by its session timeout");
            a.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            assertEquals(null, a.failure);
        }
    }

    /** A member speaking ConsumerGroupHeartbeat on a raw connection: it owns what its last answer assigned. */
    static final class RawMember {
        final Socket socket;
        final String group;
        final List<String> topics;
        final String memberId = Uuid.randomUuid().toString();
        int epoch;
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = new ArrayList<>();
        int correlation;

        RawMember(Socket socket, String group, List<String> topics) {
            this.socket = socket;
            this.group = group;
            this.topics = topics;
        }

        ConsumerGroupHeartbeatResponseData heartbeat() throws Exception {
            ConsumerGroupHeartbeatRequestData r = new ConsumerGroupHeartbeatRequestData().setGroupId(group)
                    .setMemberId(memberId).setMemberEpoch(epoch).setRebalanceTimeoutMs(epoch == 0 ? 30_000 : -1)
                    .setSubscribedTopicNames(epoch == 0 ? topics : null).setTopicPartitions(owned);
            ConsumerGroupHeartbeatResponseData out = KafkaFrames.call(socket, ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                    (short) 1, ++correlation, r);
            if (out.errorCode() == 0) {
                epoch = out.memberEpoch();
                if (out.assignment() != null) {
                    owned = new ArrayList<>();
                    for (ConsumerGroupHeartbeatResponseData.TopicPartitions t : out.assignment().topicPartitions()) {
                        owned.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(t.topicId())
                                .setPartitions(t.partitions()));
                    }
                }
            }
            return out;
        }
    }

    /**
     * A pattern subscription picks up a topic created after the member joined: a {@link SubscriptionPattern} the
     * broker resolves and a {@link java.util.regex.Pattern} the client resolves from its metadata: the new topic is
     * assigned and read either way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"broker", "client"})
    void aPatternSubscriptionPicksUpANewTopic(String resolvedBy) throws Exception {
        String group = "kc-regex-" + resolvedBy;
        String prefix = "kx" + resolvedBy.charAt(0) + "-";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(prefix + "1", 2, (short) 1))).all().get();
            Object pattern = resolvedBy.equals("broker") ? new SubscriptionPattern(prefix + ".*")
                    : java.util.regex.Pattern.compile(prefix + ".*");
            Collection<GroupConsumer.Delivery> got = new ConcurrentLinkedQueue<>();
            GroupConsumer m = GroupConsumer.consumerProtocol(bootstrap(), "m", group, null, null, pattern,
                    got, null);
            m.start();
            await(prefix + "1 assigned", () -> settled(describe(admin, group), 1, 2));
            admin.createTopics(List.of(new NewTopic(prefix + "2", 3, (short) 1))).all().get();
            await(prefix + "2 assigned too", () -> settled(describe(admin, group), 1, 5));
            Set<String> topics = assignments(describe(admin, group)).get("m").stream().map(TopicPartition::topic)
                    .collect(Collectors.toSet());
            assertEquals(Set.of(prefix + "1", prefix + "2"), topics);
            // a broker-resolved subscription is read once the client named its topics by id (Metadata v10+)
            GroupConsumer.produce(bootstrap(), prefix + "2", 3, 0, 5);
            await("records of " + prefix + "2 read", () -> got.size() == 15);
            m.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
            assertEquals(null, m.failure);
        }
    }
}
