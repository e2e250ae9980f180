package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.auth.Tenants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.kafka.transport.KafkaCall;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import jakarta.inject.Inject;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The coordinator called with the kafka-clients request classes, against PostgreSQL: committed offsets are Queen
 * cursors (SQL state, the HTTP consumer-group route and an HTTP pop under the same group name agree), the membership
 * checks of a commit, group listing, description and deletion, and hostile names answered with Kafka error codes.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class GroupCoordinatorTest {
    static final KafkaCaller CALLER = new KafkaCaller("00000000-0000-0000-0000-000000000001", "test-client",
            "127.0.0.1");

    @Inject
    GroupCoordinator coordinator;
    @Inject
    AgroalDataSource ds;

    static OffsetCommitRequestData commit(String group, int generation, String member, String topic,
            long... offsetsByPartition) {
        List<OffsetCommitRequestPartition> ps = new ArrayList<>();
        for (int i = 0; i < offsetsByPartition.length; i++) {
            ps.add(new OffsetCommitRequestPartition().setPartitionIndex(i).setCommittedOffset(offsetsByPartition[i])
                    .setCommittedMetadata("dropped"));
        }
        return new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(generation)
                .setMemberId(member).setTopics(new ArrayList<>(List.of(
                        new OffsetCommitRequestTopic().setName(topic).setPartitions(ps))));
    }

    static List<Short> errors(OffsetCommitResponseData r) {
        List<Short> out = new ArrayList<>();
        r.topics().forEach(t -> t.partitions().forEach(p -> out.add(p.errorCode())));
        return out;
    }

    /** Offsets of group g by "topic/partition", through OffsetFetch at {@code version}. */
    Map<String, Long> fetch(short version, String group, String topic, Integer... partitions) throws Exception {
        OffsetFetchRequestData req = new OffsetFetchRequestData();
        if (version >= 8) {
            req.setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(group).setTopics(topic == null ? null
                    : List.of(new OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(List.of(partitions))))));
        } else {
            req.setGroupId(group).setTopics(topic == null ? null : List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                    .setName(topic).setPartitionIndexes(List.of(partitions))));
        }
        OffsetFetchResponseData r = coordinator.offsetFetch(CALLER, version, req).toCompletableFuture().get();
        Map<String, Long> out = new HashMap<>();
        if (version >= 8) {
            assertEquals(1, r.groups().size());
            assertEquals(Errors.NONE.code(), r.groups().get(0).errorCode());
            r.groups().get(0).topics().forEach(t -> t.partitions().forEach(
                    p -> out.put(t.name() + "/" + p.partitionIndex(), p.committedOffset())));
        } else {
            assertEquals(Errors.NONE.code(), r.errorCode());
            r.topics().forEach(t -> t.partitions().forEach(
                    p -> out.put(t.name() + "/" + p.partitionIndex(), p.committedOffset())));
        }
        return out;
    }

    @Test
    void aCommittedOffsetIsTheQueenCursorAndShowsAsLagOverHttp() throws Exception {
        Api.pushN("kg-orders", "0", "a", 0, 10);
        Api.pushN("kg-orders", "1", "b", 0, 5);
        OffsetCommitResponseData r = coordinator.offsetCommit(CALLER, (short) 8,
                commit("billing", -1, "", "kg-orders", 4, 5)).toCompletableFuture().get();
        assertEquals(List.of((short) 0, (short) 0), errors(r));

        // Kafka's "next offset to read" 4 is the cursor's "last offset consumed" 3
        assertEquals("3", Sql.one(ds, "SELECT c.committed FROM queen.log_consumers c JOIN queen.log_partitions lp "
                + "ON lp.id = c.partition_id WHERE c.consumer_group = 'billing' AND lp.name = '0'"));
        assertEquals(Map.of("kg-orders/0", 4L, "kg-orders/1", 5L), fetch((short) 8, "billing", null));
        assertEquals(Map.of("kg-orders/0", 4L, "kg-orders/1", 5L, "kg-orders/2", -1L),
                fetch((short) 7, "billing", "kg-orders", 0, 1, 2));
        assertEquals(Map.of("kg-orders/0", 4L), fetch((short) 1, "billing", "kg-orders", 0));

        JsonNode view = Api.json(Http.get("/api/v1/consumer-groups/billing").body());
        Map<String, Long> lag = new HashMap<>();
        view.get("kg-orders").get("partitions").forEach(p -> lag.put(p.get("partition").asText(),
                p.get("offsetLag").asLong()));
        assertEquals(Map.of("0", 6L, "1", 0L), lag);
    }

    @Test
    void commitsQueuedOnOneConnectionAreAnsweredEachAndTheLaterOffsetOfAPartitionWins() throws Exception {
        Api.pushN("kg-queued", "0", "m", 0, 8);
        Api.pushN("kg-queued", "1", "m", 0, 8);
        OffsetCommitRequestData later = commit("queued", -1, "", "kg-queued", 3);
        later.topics().add(new OffsetCommitRequestTopic().setName("kg-missing").setPartitions(new ArrayList<>(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(1)))));
        List<KafkaCall<OffsetCommitRequestData>> calls = List.of(
                new KafkaCall<>(CALLER, (short) 8, commit("queued", -1, "", "kg-queued", 6, 2)),
                new KafkaCall<>(CALLER, (short) 8, commit("queued-other", -1, "", "kg-queued", 5)),
                new KafkaCall<>(CALLER, (short) 8, commit("", -1, "", "kg-queued", 7)),
                new KafkaCall<>(CALLER, (short) 8, later));
        List<List<Short>> answers = new ArrayList<>();
        for (var f : coordinator.offsetCommits(calls)) {
            answers.add(errors(f.get()));
        }
        assertEquals(List.of(List.of((short) 0, (short) 0), List.of((short) 0),
                List.of(Errors.INVALID_GROUP_ID.code()),
                List.of((short) 0, Errors.UNKNOWN_TOPIC_OR_PARTITION.code())), answers);
        // the later commit moved partition 0 back to 3, as it would have run after the first one
        assertEquals(Map.of("kg-queued/0", 3L, "kg-queued/1", 2L), fetch((short) 8, "queued", null));
        assertEquals(Map.of("kg-queued/0", 5L), fetch((short) 8, "queued-other", null));
    }

    @Test
    void anHttpPopUnderTheSameGroupNameReadsFromTheKafkaCommitAndACommitDropsItsLease() throws Exception {
        Api.pushN("kg-shared", "0", "m", 0, 6);
        coordinator.offsetCommit(CALLER, (short) 8, commit("shared", -1, "", "kg-shared", 4))
                .toCompletableFuture().get();
        JsonNode popped = Api.pop("/api/v1/pop/queue/kg-shared/partition/0?wait=false&batch=10&consumerGroup=shared");
        assertNotNull(popped);
        assertEquals(4, popped.get("messages").get(0).get("data").get("n").asInt());
        assertEquals(2, popped.get("messages").size());
        assertEquals("1", Sql.one(ds, "SELECT count(*) FROM queen.log_consumers WHERE consumer_group = 'shared' "
                + "AND batch_end IS NOT NULL"));
        // a commit is a seek: back to 1, the lease is gone, the next pop starts there
        coordinator.offsetCommit(CALLER, (short) 8, commit("shared", -1, "", "kg-shared", 1))
                .toCompletableFuture().get();
        assertEquals(Map.of("kg-shared/0", 1L), fetch((short) 8, "shared", null));
        JsonNode again = Api.pop("/api/v1/pop/queue/kg-shared/partition/0?wait=false&batch=10&consumerGroup=shared");
        assertEquals(1, again.get("messages").get(0).get("data").get("n").asInt());
        assertEquals(5, again.get("messages").size());
    }

    @Test
    void aCommitOfThePositionACursorHoldsWritesNothingButOneUnderALeaseStillDropsIt() throws Exception {
        Api.pushN("kg-same", "0", "m", 0, 6);
        String row = "SELECT c.xmin::text FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id WHERE c.consumer_group = 'same' AND lp.name = '0'";
        assertEquals(List.of((short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("same", -1, "", "kg-same", 4)).toCompletableFuture().get()));
        String written = Sql.one(ds, row);
        // a consumer commits all its partitions after each poll: an unmoved one is answered, not rewritten
        assertEquals(List.of((short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("same", -1, "", "kg-same", 4)).toCompletableFuture().get()));
        assertEquals(written, Sql.one(ds, row), "the cursor row was not written again");
        assertEquals(Map.of("kg-same/0", 4L), fetch((short) 8, "same", null));

        JsonNode popped = Api.pop("/api/v1/pop/queue/kg-same/partition/0?wait=false&batch=2&consumerGroup=same");
        assertEquals(4, popped.get("messages").get(0).get("data").get("n").asInt());
        coordinator.offsetCommit(CALLER, (short) 8, commit("same", -1, "", "kg-same", 4)).toCompletableFuture().get();
        assertEquals("0", Sql.one(ds, "SELECT count(*) FROM queen.log_consumers WHERE consumer_group = 'same'"
                + " AND batch_end IS NOT NULL"), "the same position under a lease: the lease is dropped");
        JsonNode again = Api.pop("/api/v1/pop/queue/kg-same/partition/0?wait=false&batch=10&consumerGroup=same");
        assertEquals(4, again.get("messages").get(0).get("data").get("n").asInt());
    }

    @Test
    void oneCommitOfHeldMovedAndNewPartitionsAnswersAndStoresEach() throws Exception {
        for (String p : List.of("0", "1", "2")) {
            Api.pushN("kg-mix", p, "m", 0, 6);
        }
        assertEquals(List.of((short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("mix", -1, "", "kg-mix", 4, 2)).toCompletableFuture().get()));
        String row = "SELECT c.xmin::text FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id WHERE c.consumer_group = 'mix' AND lp.name = '0'";
        String written = Sql.one(ds, row);
        // partition 0 holds 4 (answered by the id the first commit gave), 1 moves, 2 was never committed, and a
        // second entry for 1 later in the request wins
        OffsetCommitRequestData req = commit("mix", -1, "", "kg-mix", 4, 3, 1);
        req.topics().get(0).partitions().add(new OffsetCommitRequestPartition().setPartitionIndex(1)
                .setCommittedOffset(5));
        assertEquals(List.of((short) 0, (short) 0, (short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER,
                (short) 8, req).toCompletableFuture().get()));
        assertEquals(Map.of("kg-mix/0", 4L, "kg-mix/1", 5L, "kg-mix/2", 1L), fetch((short) 8, "mix", null));
        assertEquals(written, Sql.one(ds, row), "the held cursor was not written again");
        // every partition held now: answered from the ids alone, nothing written
        String all = "SELECT string_agg(c.xmin::text, ',' ORDER BY lp.name) FROM queen.log_consumers c"
                + " JOIN queen.log_partitions lp ON lp.id = c.partition_id WHERE c.consumer_group = 'mix'";
        String before = Sql.one(ds, all);
        assertEquals(List.of((short) 0, (short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("mix", -1, "", "kg-mix", 4, 5, 1)).toCompletableFuture().get()));
        assertEquals(before, Sql.one(ds, all));
        assertEquals(Map.of("kg-mix/0", 4L, "kg-mix/1", 5L, "kg-mix/2", 1L), fetch((short) 8, "mix", null));
    }

    @Test
    void aCommitWhosePartitionsAllHaveCursorsWritesOnlyTheMovedOnesAndADeletedGroupStartsAgain() throws Exception {
        for (String p : List.of("0", "1", "2")) {
            Api.pushN("kg-known-ids", p, "m", 0, 8);
        }
        assertEquals(List.of((short) 0, (short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("known-ids", -1, "", "kg-known-ids", 2, 4, 6)).toCompletableFuture().get()));
        String cursors = "SELECT string_agg(lp.name || ':' || c.committed || ':' || c.total_consumed || ':'"
                + " || c.xmin::text, ',' ORDER BY lp.name) FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id WHERE c.consumer_group = 'known-ids'";
        String[] before = Sql.one(ds, cursors).split(",");
        // every partition is known by the id the first commit answered: 0 holds, 1 moves forward, 2 moves back
        assertEquals(List.of((short) 0, (short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("known-ids", -1, "", "kg-known-ids", 2, 7, 3)).toCompletableFuture().get()));
        assertEquals(Map.of("kg-known-ids/0", 2L, "kg-known-ids/1", 7L, "kg-known-ids/2", 3L),
                fetch((short) 8, "known-ids", null));
        String[] after = Sql.one(ds, cursors).split(",");
        assertEquals(before[0], after[0], "the held cursor was not written again");
        // total_consumed grows by what a cursor moved forward, and not back
        assertEquals("1:6:7", after[1].substring(0, after[1].lastIndexOf(':')));
        assertEquals("2:2:6", after[2].substring(0, after[2].lastIndexOf(':')));

        DeleteGroupsResponseData d = coordinator.deleteGroups(CALLER, (short) 2, new DeleteGroupsRequestData()
                .setGroupsNames(List.of("known-ids"))).toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), d.results().find("known-ids").errorCode());
        // the remembered ids have no cursor rows now: the commit creates them again by name
        assertEquals(List.of((short) 0, (short) 0, (short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("known-ids", -1, "", "kg-known-ids", 1, 5, 8)).toCompletableFuture().get()));
        assertEquals(Map.of("kg-known-ids/0", 1L, "kg-known-ids/1", 5L, "kg-known-ids/2", 8L),
                fetch((short) 8, "known-ids", null));
    }

    /**
     * Commits that write cursors by the ids earlier answers gave, racing HTTP pops of the same group (which lease
     * those cursors) and the queue's delete: every party takes the queue lock, then cursor rows in the global
     * order, so none deadlocks (a deadlock would fail a commit with a server error, or a pop or the delete with a
     * 5xx) and every commit entry is answered stored or unknown.
     */
    @Test
    void commitsByKnownIdsRacingPopsAndTheQueuesDeleteNeverDeadlock() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            for (int round = 0; round < 8; round++) {
                String q = "kg-race" + round;
                long[] start = new long[12];
                for (int p = 0; p < start.length; p++) {
                    Api.pushN(q, Integer.toString(p), "m", 0, 4);
                    start[p] = 1;
                }
                assertTrue(errors(coordinator.offsetCommit(CALLER, (short) 8, commit("race", -1, "", q, start))
                        .toCompletableFuture().get()).stream().allMatch(e -> e == 0));
                CountDownLatch go = new CountDownLatch(1);
                List<Future<List<Short>>> commits = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    long[] offsets = new long[start.length];
                    for (int p = 0; p < offsets.length; p++) {
                        offsets[p] = (p + c) % 3 + 1;  // each commit moves a different third of the cursors
                    }
                    commits.add(pool.submit(() -> {
                        go.await();
                        return errors(coordinator.offsetCommit(CALLER, (short) 8, commit("race", -1, "", q, offsets))
                                .toCompletableFuture().get());
                    }));
                }
                List<Future<Http.Reply>> others = new ArrayList<>();
                others.add(pool.submit(() -> {
                    go.await();
                    return Http.get("/api/v1/pop/queue/" + q + "?batch=40&partitions=12&wait=false&consumerGroup=race");
                }));
                others.add(pool.submit(() -> {
                    go.await();
                    return Http.delete("/api/v1/resources/queues/" + q);
                }));
                go.countDown();
                for (Future<List<Short>> f : commits) {
                    for (short e : f.get(60, TimeUnit.SECONDS)) {
                        assertTrue(e == Errors.NONE.code() || e == Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                                "round " + round + ": " + Errors.forCode(e));
                    }
                }
                for (Future<Http.Reply> f : others) {
                    Http.Reply r = f.get(60, TimeUnit.SECONDS);
                    assertTrue(r.status() < 500, "round " + round + ": " + r.status() + " " + r.body());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCommitAfterItsTopicWasDeletedAndCreatedAgainLandsOnTheNewPartition() throws Exception {
        Api.pushN("kg-reborn", "0", "m", 0, 6);
        for (int i = 0; i < 2; i++) {  // the second commit goes by the partition id the first one answered
            assertEquals(List.of((short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                    commit("reborn", -1, "", "kg-reborn", 4)).toCompletableFuture().get()));
        }
        assertEquals(200, Http.delete("/api/v1/resources/queues/kg-reborn").status());
        Api.pushN("kg-reborn", "0", "m", 0, 3);
        assertEquals(Map.of(), fetch((short) 8, "reborn", null), "the deleted topic took its cursor with it");
        // the remembered id names a partition that is gone: the entry is resolved by name again
        assertEquals(List.of((short) 0), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("reborn", -1, "", "kg-reborn", 4)).toCompletableFuture().get()));
        assertEquals(Map.of("kg-reborn/0", 4L), fetch((short) 8, "reborn", null));
        assertEquals("3", Sql.one(ds, "SELECT c.committed FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id"
                + " WHERE c.consumer_group = 'reborn' AND q.name = 'kg-reborn'"));
    }

    @Test
    void commitsToUnknownTopicsOrPartitionsAreRefusedPerPartitionAndTheRestIsStored() throws Exception {
        Api.pushN("kg-known", "0", "m", 0, 3);
        OffsetCommitRequestData req = commit("mixed", -1, "", "kg-known", 2, 1);
        req.topics().add(new OffsetCommitRequestTopic().setName("kg-no-such-topic").setPartitions(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(1))));
        req.topics().add(new OffsetCommitRequestTopic().setName("bad\0name").setPartitions(List.of(
                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(1))));
        req.topics().get(0).partitions().add(new OffsetCommitRequestPartition().setPartitionIndex(0)
                .setCommittedOffset(-5));
        OffsetCommitResponseData r = coordinator.offsetCommit(CALLER, (short) 8, req).toCompletableFuture().get();
        assertEquals(List.of(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                Errors.OFFSET_OUT_OF_RANGE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                Errors.UNKNOWN_TOPIC_OR_PARTITION.code()), errors(r));
        assertEquals(Map.of("kg-known/0", 2L), fetch((short) 8, "mixed", null));
    }

    @Test
    void aNeverWrittenPartitionOfATopicTakesACommitAndOneBeyondItsCountDoesNot() throws Exception {
        Sql.one(ds, "SELECT queen.kafka_create_topic_v1('" + CALLER.tenant() + "', 'kg-empty', 3, 0, 'delete', 300)");
        OffsetCommitRequestData req = commit("empty-parts", -1, "", "kg-empty", 0, 0, 0, 0);
        assertEquals(List.of(Errors.NONE.code(), Errors.NONE.code(), Errors.NONE.code(),
                Errors.UNKNOWN_TOPIC_OR_PARTITION.code()), errors(coordinator.offsetCommit(CALLER, (short) 8, req)
                        .toCompletableFuture().get()));
        assertEquals(Map.of("kg-empty/0", 0L, "kg-empty/1", 0L, "kg-empty/2", 0L),
                fetch((short) 8, "empty-parts", null));
    }

    @Test
    void aMembersCommitNeedsItsCurrentGenerationAndAnAnonymousOneAnEmptyGroup() throws Exception {
        Api.pushN("kg-member", "0", "m", 0, 3);
        JoinGroupResponseData first = coordinator.joinGroup(CALLER, (short) 9, joinRequest("members", ""))
                .toCompletableFuture().get();
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.errorCode());
        JoinGroupResponseData j = coordinator.joinGroup(CALLER, (short) 9, joinRequest("members", first.memberId()))
                .toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), j.errorCode());
        assertEquals("range", j.protocolName());
        assertEquals("consumer", j.protocolType());
        SyncGroupResponseData s = coordinator.syncGroup(CALLER, (short) 5, new SyncGroupRequestData()
                .setGroupId("members").setGenerationId(j.generationId()).setMemberId(j.memberId())
                .setProtocolType("consumer").setProtocolName("range").setAssignments(List.of(
                        new SyncGroupRequestAssignment().setMemberId(j.memberId()).setAssignment(new byte[] {3}))))
                .toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), s.errorCode());
        assertEquals(3, s.assignment()[0]);

        assertEquals(List.of(Errors.ILLEGAL_GENERATION.code()), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("members", j.generationId() + 1, j.memberId(), "kg-member", 1)).toCompletableFuture().get()));
        assertEquals(List.of(Errors.UNKNOWN_MEMBER_ID.code()), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("members", -1, "", "kg-member", 1)).toCompletableFuture().get()));
        assertEquals(List.of(Errors.NONE.code()), errors(coordinator.offsetCommit(CALLER, (short) 8,
                commit("members", j.generationId(), j.memberId(), "kg-member", 2)).toCompletableFuture().get()));
        assertEquals(Map.of("kg-member/0", 2L), fetch((short) 8, "members", null));

        // a group with a member cannot be deleted; it is described with its member and listed Stable
        DeleteGroupsResponseData d = coordinator.deleteGroups(CALLER, (short) 2,
                new DeleteGroupsRequestData().setGroupsNames(List.of("members"))).toCompletableFuture().get();
        assertEquals(Errors.NON_EMPTY_GROUP.code(), d.results().find("members").errorCode());
        DescribedGroup g = coordinator.describeGroups(CALLER, (short) 5,
                new DescribeGroupsRequestData().setGroups(List.of("members"))).toCompletableFuture().get()
                .groups().get(0);
        assertEquals("Stable", g.groupState());
        assertEquals("range", g.protocolData());
        assertEquals(1, g.members().size());
        assertEquals("test-client", g.members().get(0).clientId());
        assertEquals(3, g.members().get(0).memberAssignment()[0]);
        // the console's snapshot of it: the member, and no partitions from an assignment that does not decode
        GroupCoordinator.GroupSnapshot snap = coordinator.snapshot(Tenants.of(CALLER.tenant()), "members");
        assertEquals(List.of("Stable", "test-client", j.memberId()), List.of(snap.state(),
                snap.members().get(0).clientId(), snap.members().get(0).memberId()));
        assertEquals(List.of(), snap.members().get(0).assigned());
        assertEquals(Errors.NONE.code(), coordinator.heartbeat(CALLER, (short) 4, new HeartbeatRequestData()
                .setGroupId("members").setGenerationId(j.generationId()).setMemberId(j.memberId()))
                .toCompletableFuture().get().errorCode());

        LeaveGroupResponseData left = coordinator.leaveGroup(CALLER, (short) 5, new LeaveGroupRequestData()
                .setGroupId("members").setMembers(List.of(new MemberIdentity().setMemberId(j.memberId()))))
                .toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), left.errorCode());
        assertEquals(Errors.NONE.code(), left.members().get(0).errorCode());
        d = coordinator.deleteGroups(CALLER, (short) 2,
                new DeleteGroupsRequestData().setGroupsNames(List.of("members"))).toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), d.results().find("members").errorCode());
        assertEquals("0", Sql.one(ds, "SELECT count(*) FROM queen.log_consumers WHERE consumer_group = 'members'"));
        assertEquals(null, coordinator.snapshot(Tenants.of(CALLER.tenant()), "members"), "no membership left");
    }

    static JoinGroupRequestData joinRequest(String group, String memberId) {
        JoinGroupRequestProtocolCollection ps = new JoinGroupRequestProtocolCollection();
        ps.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {1}));
        return new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setSessionTimeoutMs(6000)
                .setRebalanceTimeoutMs(10_000).setProtocolType("consumer").setProtocols(ps);
    }

    @Test
    void groupsWithOffsetsOnlyAreListedAndDescribedEmptyAndUnknownOnesAreNotFound() throws Exception {
        Api.pushN("kg-list", "0", "m", 0, 2);
        coordinator.offsetCommit(CALLER, (short) 8, commit("offsets-only", -1, "", "kg-list", 1))
                .toCompletableFuture().get();
        List<ListedGroup> listed = coordinator.listGroups(CALLER, (short) 5, new ListGroupsRequestData())
                .toCompletableFuture().get().groups();
        ListedGroup l = listed.stream().filter(x -> x.groupId().equals("offsets-only")).findFirst().orElseThrow();
        assertEquals("Empty", l.groupState());
        assertEquals("", l.protocolType());
        assertEquals("classic", l.groupType());
        assertTrue(coordinator.listGroups(CALLER, (short) 5, new ListGroupsRequestData()
                .setStatesFilter(List.of("Stable"))).toCompletableFuture().get().groups().stream()
                .noneMatch(x -> x.groupId().equals("offsets-only")));
        assertTrue(coordinator.listGroups(CALLER, (short) 5, new ListGroupsRequestData()
                .setTypesFilter(List.of("consumer"))).toCompletableFuture().get().groups().isEmpty());

        List<DescribedGroup> described = coordinator.describeGroups(CALLER, (short) 6,
                new DescribeGroupsRequestData().setGroups(List.of("offsets-only", "never-seen")))
                .toCompletableFuture().get().groups();
        assertEquals("Empty", described.get(0).groupState());
        assertEquals(Errors.NONE.code(), described.get(0).errorCode());
        assertEquals("Dead", described.get(1).groupState());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), described.get(1).errorCode());
        assertEquals(Errors.NONE.code(), coordinator.describeGroups(CALLER, (short) 5,
                new DescribeGroupsRequestData().setGroups(List.of("never-seen"))).toCompletableFuture().get()
                .groups().get(0).errorCode(), "before version 6 an unknown group is a Dead group");

        DeleteGroupsResponseData d = coordinator.deleteGroups(CALLER, (short) 2, new DeleteGroupsRequestData()
                .setGroupsNames(List.of("offsets-only", "never-seen"))).toCompletableFuture().get();
        assertEquals(Errors.NONE.code(), d.results().find("offsets-only").errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), d.results().find("never-seen").errorCode());
        assertEquals(Map.of(), fetch((short) 8, "offsets-only", null));
        assertEquals("{}", Http.get("/api/v1/consumer-groups/offsets-only").body());
    }

    @Test
    void hostileOrReservedGroupIdsAnswerInvalidGroupId() throws Exception {
        for (String bad : new String[] {"", "__QUEUE_MODE__", "nul\0id", "x".repeat(256)}) {
            assertEquals(Errors.INVALID_GROUP_ID.code(), coordinator.joinGroup(CALLER, (short) 9,
                    joinRequest(bad, "")).toCompletableFuture().get().errorCode(), bad);
            assertEquals(List.of(Errors.INVALID_GROUP_ID.code()), errors(coordinator.offsetCommit(CALLER, (short) 8,
                    commit(bad, -1, "", "t", 1)).toCompletableFuture().get()));
            OffsetFetchResponseData f = coordinator.offsetFetch(CALLER, (short) 8, new OffsetFetchRequestData()
                    .setGroups(List.of(new OffsetFetchRequestGroup().setGroupId(bad).setTopics(null))))
                    .toCompletableFuture().get();
            assertEquals(Errors.INVALID_GROUP_ID.code(), f.groups().get(0).errorCode());
            assertEquals(Errors.INVALID_GROUP_ID.code(), coordinator.deleteGroups(CALLER, (short) 2,
                    new DeleteGroupsRequestData().setGroupsNames(List.of(bad))).toCompletableFuture().get()
                    .results().find(bad).errorCode());
        }
    }

    /** Writes {@code m} as the wire would at {@code version}: a field the version lacks or a null it forbids fails. */
    static void writable(ApiMessage m, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(m.size(cache, version));
        m.write(new ByteBufferAccessor(buf), cache, version);
    }

    /** Every answer, success and error, at every version kafka-clients knows of each API. */
    @Test
    void everyAnswerIsWritableAtEveryVersion() throws Exception {
        Api.pushN("kg-versions", "0", "m", 0, 2);
        for (short v = ApiKeys.JOIN_GROUP.oldestVersion(); v <= ApiKeys.JOIN_GROUP.latestVersion(); v++) {
            String group = "versions-" + v;
            JoinGroupResponseData j = coordinator.joinGroup(CALLER, v, joinRequest(group, "")).toCompletableFuture()
                    .get();
            writable(j, v);
            if (j.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                j = coordinator.joinGroup(CALLER, v, joinRequest(group, j.memberId())).toCompletableFuture().get();
                writable(j, v);
            }
            assertEquals(Errors.NONE.code(), j.errorCode(), "version " + v);
            writable(coordinator.joinGroup(CALLER, v, joinRequest("", "")).toCompletableFuture().get(), v);
            short sv = (short) Math.min(v, ApiKeys.SYNC_GROUP.latestVersion());
            SyncGroupResponseData s = coordinator.syncGroup(CALLER, sv, new SyncGroupRequestData().setGroupId(group)
                    .setGenerationId(j.generationId()).setMemberId(j.memberId()).setAssignments(List.of()))
                    .toCompletableFuture().get();
            assertEquals(Errors.NONE.code(), s.errorCode());
            writable(s, sv);
            writable(coordinator.syncGroup(CALLER, sv, new SyncGroupRequestData().setGroupId(group)
                    .setGenerationId(99).setMemberId(j.memberId())).toCompletableFuture().get(), sv);
            short hv = (short) Math.min(v, ApiKeys.HEARTBEAT.latestVersion());
            writable(coordinator.heartbeat(CALLER, hv, new HeartbeatRequestData().setGroupId(group)
                    .setGenerationId(j.generationId()).setMemberId(j.memberId())).toCompletableFuture().get(), hv);
            short lv = (short) Math.min(v, ApiKeys.LEAVE_GROUP.latestVersion());
            LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId(group);
            if (lv < 3) {
                leave.setMemberId(j.memberId());
            } else {
                leave.setMembers(List.of(new MemberIdentity().setMemberId(j.memberId())));
            }
            LeaveGroupResponseData l = coordinator.leaveGroup(CALLER, lv, leave).toCompletableFuture().get();
            writable(l, lv);
            assertEquals(Errors.NONE.code(), lv < 3 ? l.errorCode() : l.members().get(0).errorCode());
        }
        for (short v = ApiKeys.OFFSET_COMMIT.oldestVersion(); v <= ApiKeys.OFFSET_COMMIT.latestVersion(); v++) {
            writable(coordinator.offsetCommit(CALLER, v, commit("versions", -1, "", "kg-versions", 1))
                    .toCompletableFuture().get(), v);
        }
        for (short v = ApiKeys.OFFSET_FETCH.oldestVersion(); v <= ApiKeys.OFFSET_FETCH.latestVersion(); v++) {
            OffsetFetchRequestData req = v >= 8
                    ? new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup()
                            .setGroupId("versions").setTopics(null)))
                    : new OffsetFetchRequestData().setGroupId("versions").setTopics(v >= 2 ? null : List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("kg-versions")
                                    .setPartitionIndexes(List.of(0))));
            writable(coordinator.offsetFetch(CALLER, v, req).toCompletableFuture().get(), v);
        }
        for (short v = ApiKeys.LIST_GROUPS.oldestVersion(); v <= ApiKeys.LIST_GROUPS.latestVersion(); v++) {
            writable(coordinator.listGroups(CALLER, v, new ListGroupsRequestData()).toCompletableFuture().get(), v);
        }
        for (short v = ApiKeys.DESCRIBE_GROUPS.oldestVersion(); v <= ApiKeys.DESCRIBE_GROUPS.latestVersion(); v++) {
            writable(coordinator.describeGroups(CALLER, v, new DescribeGroupsRequestData()
                    .setGroups(List.of("versions", "nobody", "", "versions-9"))).toCompletableFuture().get(), v);
        }
        for (short v = ApiKeys.DELETE_GROUPS.oldestVersion(); v <= ApiKeys.DELETE_GROUPS.latestVersion(); v++) {
            writable(coordinator.deleteGroups(CALLER, v, new DeleteGroupsRequestData()
                    .setGroupsNames(List.of("nobody", ""))).toCompletableFuture().get(), v);
        }
    }
}
