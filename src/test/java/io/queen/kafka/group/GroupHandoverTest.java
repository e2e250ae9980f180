package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.group.ClassicGroups.JoinResult;
import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ClassicGroups.Settings;
import io.queen.kafka.group.ClassicGroups.SyncResult;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * A group moving between coordinators that share one {@link GroupLog} (as brokers share PostgreSQL): the next
 * coordinator continues the group with its generation, members and assignments; a coordinator whose copy went stale
 * can hand out nothing more; generations never go backwards, so a zombie of an old generation is fenced.
 */
class GroupHandoverTest {
    static final int SESSION = ClassicGroupsTest.SESSION;

    final AtomicLong now = new AtomicLong(1_000_000);
    final InMemoryGroupLog log = new InMemoryGroupLog();
    final Key key = new Key(UUID.randomUUID(), "g");
    final ClassicGroups a = new ClassicGroups(new Settings(0, 1000, 60_000, 50, 1 << 20), now::get, log);
    final ClassicGroups b = new ClassicGroups(new Settings(0, 1000, 60_000, 50, 1 << 20), now::get, log);

    static JoinResult member(ClassicGroups on, Key key) {
        JoinResult first = on.join(key, ClassicGroupsTest.join("", true, "range")).join();
        return on.join(key, ClassicGroupsTest.join(first.memberId(), true, "range")).join();
    }

    /** Two members on coordinator {@code a} at a Stable generation; answers the two join results. */
    JoinResult[] stableOnA() {
        JoinResult m1 = member(a, key);
        a.sync(key, m1.memberId(), null, 1, "consumer", "range", Map.of(m1.memberId(), new byte[] {1})).join();
        JoinResult first = a.join(key, ClassicGroupsTest.join("", true, "range")).join();
        CompletableFuture<JoinResult> w2 = a.join(key, ClassicGroupsTest.join(first.memberId(), true, "range"));
        JoinResult r1 = a.join(key, ClassicGroupsTest.join(m1.memberId(), true, "range")).join();
        JoinResult r2 = w2.join();
        assertEquals(2, r1.generationId());
        CompletableFuture<SyncResult> s2 = a.sync(key, r2.memberId(), null, 2, "consumer", "range", Map.of());
        a.sync(key, r1.memberId(), null, 2, "consumer", "range",
                Map.of(r1.memberId(), new byte[] {1}, r2.memberId(), new byte[] {2})).join();
        assertArrayEquals(new byte[] {2}, s2.join().assignment());
        return new JoinResult[] {r1, r2};
    }

    @Test
    void theNextCoordinatorContinuesTheGroupWithItsGenerationMembersAndAssignments() {
        JoinResult[] m = stableOnA();
        // b has never seen the group: it loads it on the first request and the members' heartbeats go on
        assertEquals(Errors.NONE, b.heartbeat(key, m[0].memberId(), null, 2));
        assertEquals(Errors.NONE, b.heartbeat(key, m[1].memberId(), null, 2));
        ClassicGroups.GroupView v = b.describe(key);
        assertEquals(ClassicGroupState.STABLE, v.state());
        assertEquals(2, v.members().size());
        assertEquals(Errors.NONE, b.validateCommit(key, m[1].memberId(), null, 2), "a commit of generation 2");
        // a member that missed its SyncGroup answer gets its assignment from the new coordinator
        SyncResult again = b.sync(key, m[1].memberId(), null, 2, "consumer", "range", Map.of()).join();
        assertArrayEquals(new byte[] {2}, again.assignment());
        assertEquals(Errors.ILLEGAL_GENERATION, b.heartbeat(key, m[0].memberId(), null, 1));
    }

    @Test
    void aMemberSilentOnTheNewCoordinatorIsEvictedAndTheGenerationMovesOnFromTheSavedOne() {
        JoinResult[] m = stableOnA();
        assertEquals(Errors.NONE, b.heartbeat(key, m[0].memberId(), null, 2));
        now.addAndGet(SESSION + 1);
        assertEquals(Errors.NONE, b.heartbeat(key, m[0].memberId(), null, 2));
        b.expire(); // m[1] never reached b: evicted, the group rebalances
        assertEquals(Errors.REBALANCE_IN_PROGRESS, b.heartbeat(key, m[0].memberId(), null, 2));
        JoinResult r = b.join(key, ClassicGroupsTest.join(m[0].memberId(), true, "range")).join();
        assertEquals(3, r.generationId(), "continues after the saved generation 2");
        assertEquals(3, log.saved.get(key).generation());
    }

    @Test
    void aStaleCoordinatorHandsOutNothingAndItsMembersAreSentToLookAgain() {
        JoinResult[] m = stableOnA();
        // b takes over and moves the group to generation 3 while a still holds its copy of generation 2
        assertEquals(Errors.NONE, b.heartbeat(key, m[0].memberId(), null, 2));
        CompletableFuture<JoinResult> onB = b.join(key, ClassicGroupsTest.join(m[0].memberId(), true, "range"));
        now.addAndGet(ClassicGroupsTest.REBALANCE + 1);
        b.expire();
        assertEquals(3, onB.join().generationId());
        // a zombie leader on a: its rejoin completes generation 3 there; the save is refused, nothing is handed out
        CompletableFuture<JoinResult> zombie = a.join(key, ClassicGroupsTest.join(m[0].memberId(), true, "range"));
        now.addAndGet(ClassicGroupsTest.REBALANCE + 1);
        a.expire();
        assertTrue(zombie.isDone());
        assertEquals(Errors.NOT_COORDINATOR, zombie.join().error());
        assertEquals(3, log.saved.get(key).generation(), "generation 3 is b's, with b's members");
        assertEquals(1, log.saved.get(key).members().size());
        // coming back to a, the group is loaded afresh: the zombie's generation 2 is fenced
        assertEquals(Errors.ILLEGAL_GENERATION, a.validateCommit(key, m[0].memberId(), null, 2));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, a.heartbeat(key, m[1].memberId(), null, 2));
    }

    @Test
    void aGroupDroppedHereAnswersItsWaitingMembersNotCoordinator() {
        JoinResult m1 = member(a, key);
        JoinResult first = a.join(key, ClassicGroupsTest.join("", true, "range")).join();
        CompletableFuture<JoinResult> w2 = a.join(key, ClassicGroupsTest.join(first.memberId(), true, "range"));
        a.dropUnless(k -> false);
        assertEquals(Errors.NOT_COORDINATOR, w2.join().error());
        // what was saved (generation 1, its assignment not yet handed out) is where the next coordinator starts
        assertEquals(1, log.saved.get(key).generation());
        assertEquals(Errors.NONE, b.heartbeat(key, m1.memberId(), null, 1));
        assertEquals(ClassicGroupState.COMPLETING_REBALANCE, b.describe(key).state());
        SyncResult s = b.sync(key, m1.memberId(), null, 1, "consumer", "range", Map.of(m1.memberId(),
                new byte[] {9})).join();
        assertArrayEquals(new byte[] {9}, s.assignment());
        assertEquals(ClassicGroupState.STABLE, b.describe(key).state());
    }
}
