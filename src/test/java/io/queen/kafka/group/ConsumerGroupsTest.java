package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Consumer-protocol groups driven heartbeat by heartbeat with a test clock: reconciliation (a partition reaches its
 * new owner only after its old owner confirmed the revocation), member epochs, static members, session timeouts, and
 * another coordinator continuing a group from its saved state.
 */
class ConsumerGroupsTest {
    static final Uuid T = Uuid.randomUuid();
    static final Map<String, ConsumerGroup.TopicInfo> TOPICS = Map.of("t", new ConsumerGroup.TopicInfo(T, "t", 6));
    static final ClassicGroups.Key KEY = new ClassicGroups.Key(UUID.randomUUID(), "g");
    static final ConsumerGroups.Settings SETTINGS = new ConsumerGroups.Settings(3000, 300, 50,
            PartitionAssignor.all());

    final AtomicLong now = new AtomicLong(1_000_000);
    final InMemoryConsumerGroupLog log = new InMemoryConsumerGroupLog();
    final ConsumerGroups groups = new ConsumerGroups(SETTINGS, now::get, log);

    static ConsumerGroup.Heartbeat join(String member, String instance) {
        return new ConsumerGroup.Heartbeat(member, 0, instance, null, 30_000, List.of("t"), null, null, Map.of(),
                "client", "host");
    }

    static ConsumerGroup.Heartbeat beat(String member, int epoch, Set<Integer> owned) {
        return new ConsumerGroup.Heartbeat(member, epoch, null, null, -1, null, null, null,
                owned == null ? null : Map.of(T, owned), "client", "host");
    }

    static Set<Integer> of(ConsumerGroup.HeartbeatResult r) {
        return r.assignment().getOrDefault(T, Set.of());
    }

    ConsumerGroup.HeartbeatResult hb(ConsumerGroups on, ConsumerGroup.Heartbeat h) {
        return on.heartbeat(KEY, h, TOPICS);
    }

    @Test
    void aPartitionMovesOnlyAfterItsOwnerConfirmedTheRevocation() {
        ConsumerGroup.HeartbeatResult a = hb(groups, join("a", null));
        assertEquals(1, a.memberEpoch());
        assertEquals(Set.of(0, 1, 2, 3, 4, 5), of(a));

        ConsumerGroup.HeartbeatResult b = hb(groups, join("b", null));
        assertEquals(2, b.memberEpoch(), "b is at the new epoch, waiting for partitions a still owns");
        assertEquals(Set.of(), of(b));

        a = hb(groups, beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)));
        assertEquals(1, a.memberEpoch(), "a keeps its epoch until it confirms");
        Set<Integer> kept = of(a);
        assertEquals(3, kept.size());
        assertNull(hb(groups, beat("b", 2, Set.of())).assignment(), "nothing released yet");

        a = hb(groups, beat("a", 1, kept));
        assertEquals(2, a.memberEpoch(), "the revocation confirmed, a moves to the group epoch");
        b = hb(groups, beat("b", 2, Set.of()));
        assertEquals(2, b.memberEpoch());
        assertEquals(3, of(b).size());
        assertEquals(Set.of(), intersection(kept, of(b)));
        assertEquals(ConsumerGroupState.STABLE, groups.read(KEY, ConsumerGroup::state, () -> null));
    }

    static Set<Integer> intersection(Set<Integer> x, Set<Integer> y) {
        Set<Integer> out = new java.util.HashSet<>(x);
        out.retainAll(y);
        return out;
    }

    @Test
    void epochsAheadOrUnknownMembersAreAnsweredAsKafkaDoes() {
        hb(groups, join("a", null));
        assertEquals(Errors.FENCED_MEMBER_EPOCH, hb(groups, beat("a", 7, Set.of())).error());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, hb(groups, beat("nobody", 1, Set.of())).error());
        hb(groups, join("b", null));
        Set<Integer> kept = of(hb(groups, beat("a", 1, Set.of(0, 1, 2, 3, 4, 5))));
        assertEquals(2, hb(groups, beat("a", 1, kept)).memberEpoch());
        // the answer that moved it to epoch 2 was lost: its previous epoch with partitions it still has is accepted
        assertEquals(Errors.NONE, hb(groups, beat("a", 1, kept)).error());
        // but not with a partition it no longer has
        assertEquals(Errors.FENCED_MEMBER_EPOCH, hb(groups, beat("a", 1, Set.of(0, 1, 2, 3, 4, 5))).error());
        assertEquals(Errors.STALE_MEMBER_EPOCH,
                groups.read(KEY, g -> g.validateOffsets("a", 0, true), () -> null));
        assertEquals(Errors.UNKNOWN_MEMBER_ID,
                groups.read(KEY, g -> g.validateOffsets("x", 2, true), () -> null));
        assertEquals(Errors.UNKNOWN_MEMBER_ID,
                groups.read(KEY, g -> g.validateOffsets(null, -1, true), () -> null), "no admin commit while live");
    }

    /** A request header without client id (nullable on the wire) still describes as a valid answer. */
    @Test
    void aMemberWithoutClientIdIsDescribedWithAnEmptyOne() {
        hb(groups, new ConsumerGroup.Heartbeat("a", 0, null, null, 30_000, List.of("t"), null, null, Map.of(), null,
                null));
        var d = groups.read(KEY, g -> ConsumerGroupAnswers.described(g, Map.of(T, "t")), () -> null);
        assertEquals("", d.members().get(0).clientId());
        org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(
                new org.apache.kafka.common.message.ConsumerGroupDescribeResponseData().setGroups(List.of(d)),
                (short) 1);
    }

    @Test
    void aSilentMemberIsEvictedAtItsSessionTimeoutAndItsPartitionsMove() {
        hb(groups, join("a", null));
        hb(groups, join("b", null));
        ConsumerGroup.HeartbeatResult a = hb(groups, beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)));
        hb(groups, beat("a", 1, of(a)));
        hb(groups, beat("b", 2, Set.of()));
        now.addAndGet(2000);
        hb(groups, beat("a", 2, of(a)));
        now.addAndGet(1001);
        groups.expire();
        assertEquals(Set.of("a"), groups.read(KEY, g -> g.members().keySet(), () -> null));
        a = hb(groups, beat("a", 2, of(a)));
        assertEquals(3, a.memberEpoch());
        assertEquals(Set.of(0, 1, 2, 3, 4, 5), of(a));
    }

    @Test
    void aStaticMemberLeavingForNowKeepsItsPartitionsForItsNextProcess() {
        ConsumerGroup.HeartbeatResult s = hb(groups, join("s-1", "i"));
        hb(groups, join("b", null));
        s = hb(groups, new ConsumerGroup.Heartbeat("s-1", 1, "i", null, -1, null, null, null,
                Map.of(T, of(s)), "client", "host"));
        Set<Integer> held = of(s);
        hb(groups, new ConsumerGroup.Heartbeat("s-1", 1, "i", null, -1, null, null, null,
                Map.of(T, held), "client", "host"));
        assertEquals(Errors.NONE, hb(groups, new ConsumerGroup.Heartbeat("s-1", ConsumerGroup.STATIC_LEAVE, "i",
                null, -1, null, null, null, null, "client", "host")).error());
        assertEquals(Errors.NONE, hb(groups, join("s-2", "i")).error(),
                "the instance released, its next process takes its place");
        assertEquals(held, groups.read(KEY, g -> g.members().get("s-2").assigned.get(T), () -> null));
        assertEquals(Errors.UNRELEASED_INSTANCE_ID, hb(groups, join("s-3", "i")).error(),
                "an instance id held by a live member");
        assertEquals(Errors.FENCED_INSTANCE_ID, hb(groups, new ConsumerGroup.Heartbeat("s-1", 1, "i", null, -1,
                null, null, null, null, "client", "host")).error());
    }

    @Test
    void anotherCoordinatorContinuesTheGroupWithoutMovingPartitions() {
        handover(log, now);
    }

    /**
     * Two coordinators over one log, as two brokers over PostgreSQL: a group formed on the first goes on on the
     * second with its members' epochs and partitions; the first's copy, stale once the second saved, is refused.
     */
    static void handover(ConsumerGroupLog log, AtomicLong now) {
        ConsumerGroups first = new ConsumerGroups(SETTINGS, now::get, log);
        first.heartbeat(KEY, join("a", null), TOPICS);
        first.heartbeat(KEY, join("b", null), TOPICS);
        Set<Integer> ofA = of(first.heartbeat(KEY, beat("a", 1, Set.of(0, 1, 2, 3, 4, 5)), TOPICS));
        first.heartbeat(KEY, beat("a", 1, ofA), TOPICS);
        Set<Integer> ofB = of(first.heartbeat(KEY, beat("b", 2, Set.of()), TOPICS));

        ConsumerGroups next = new ConsumerGroups(SETTINGS, now::get, log);
        assertEquals(Errors.NONE, next.heartbeat(KEY, beat("a", 2, ofA), TOPICS).error());
        assertEquals(Errors.NONE, next.heartbeat(KEY, beat("b", 2, ofB), TOPICS).error());
        assertEquals(ofA, next.read(KEY, g -> g.members().get("a").assigned.get(T), () -> null));
        assertEquals(ofB, next.read(KEY, g -> g.members().get("b").assigned.get(T), () -> null));
        assertEquals(Errors.NONE, next.heartbeat(KEY, join("c", null), TOPICS).error());
        // the first coordinator's copy is stale: its next change is refused and it lets go of the group
        assertEquals(Errors.NOT_COORDINATOR, first.heartbeat(KEY, join("d", null), TOPICS).error());

        // the last member gone, the group is forgotten: its next member starts it at epoch 1
        for (String m : List.of("a", "b", "c")) {
            assertEquals(Errors.NONE, next.heartbeat(KEY, new ConsumerGroup.Heartbeat(m, ConsumerGroup.LEAVE, null,
                    null, -1, null, null, null, null, "client", "host"), TOPICS).error());
        }
        assertNull(log.load(KEY));
        assertEquals(1, next.heartbeat(KEY, join("e", null), TOPICS).memberEpoch());
    }
}
