package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.group.ClassicGroups.JoinRequest;
import io.queen.kafka.group.ClassicGroups.JoinResult;
import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ClassicGroups.LeavingMember;
import io.queen.kafka.group.ClassicGroups.Protocol;
import io.queen.kafka.group.ClassicGroups.Settings;
import io.queen.kafka.group.ClassicGroups.SyncResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The classic group state machine on a clock the test drives: join phases, generations, leader election, protocol
 * choice, assignment relay, heartbeats during a rebalance, evictions by session timeout and by rebalance deadline,
 * leaves, static members, commit validation, and concurrent members converging on one generation.
 */
class ClassicGroupsTest {
    static final int SESSION = 3000;
    static final int REBALANCE = 10_000;

    final AtomicLong now = new AtomicLong(1_000_000);
    ClassicGroups groups = new ClassicGroups(new Settings(0, 1000, 60_000, 50, 1 << 20), now::get,
            new InMemoryGroupLog());
    final Key key = new Key(UUID.randomUUID(), "g");

    static JoinRequest join(String memberId, boolean v4, String... protocols) {
        List<Protocol> ps = new ArrayList<>();
        for (String p : protocols) {
            ps.add(new Protocol(p, (memberId + "/" + p).getBytes(StandardCharsets.UTF_8)));
        }
        return new JoinRequest(memberId, null, "client", "127.0.0.1", SESSION, REBALANCE, "consumer", ps, v4);
    }

    static JoinRequest staticJoin(String memberId, String instance) {
        return new JoinRequest(memberId, instance, "client", "127.0.0.1", SESSION, REBALANCE, "consumer",
                List.of(new Protocol("range", new byte[] {1})), true);
    }

    /** A new member's two JoinGroups (v4+): the id first, then the wait for the generation. */
    CompletableFuture<JoinResult> newMember(String... protocols) {
        JoinResult first = groups.join(key, join("", true, protocols)).join();
        assertEquals(Errors.MEMBER_ID_REQUIRED, first.error());
        assertTrue(first.memberId().startsWith("client-"), first.memberId());
        return groups.join(key, join(first.memberId(), true, protocols));
    }

    /** A member that joined and synced with no assignment: the group is stable with it as leader. */
    JoinResult stableMember(String... protocols) {
        JoinResult r = newMember(protocols).join();
        sync(r, Map.of());
        return r;
    }

    SyncResult sync(JoinResult r, Map<String, byte[]> assignments) {
        return groups.sync(key, r.memberId(), null, r.generationId(), "consumer", r.protocolName(), assignments)
                .join();
    }

    @Test
    void aLoneMemberGetsItsIdThenGenerationOneAsLeader() {
        JoinResult r = newMember("range").join();
        assertEquals(Errors.NONE, r.error());
        assertEquals(1, r.generationId());
        assertEquals(r.memberId(), r.leaderId());
        assertEquals("range", r.protocolName());
        assertEquals(1, r.members().size());
        assertArrayEquals((r.memberId() + "/range").getBytes(StandardCharsets.UTF_8), r.members().get(0).metadata());
        assertEquals(ClassicGroupState.COMPLETING_REBALANCE, groups.describe(key).state());
        SyncResult s = sync(r, Map.of(r.memberId(), new byte[] {7}));
        assertEquals(Errors.NONE, s.error());
        assertArrayEquals(new byte[] {7}, s.assignment());
        assertEquals(ClassicGroupState.STABLE, groups.describe(key).state());
    }

    @Test
    void aJoinerMakesTheGroupRebalanceAndTheLeaderGetsEveryMembersMetadataOnly() {
        JoinResult a = stableMember("range", "roundrobin");
        CompletableFuture<JoinResult> bWait = newMember("roundrobin", "range");
        assertFalse(bWait.isDone(), "waits for a to rejoin");
        assertEquals(Errors.REBALANCE_IN_PROGRESS, groups.heartbeat(key, a.memberId(), null, a.generationId()));
        CompletableFuture<JoinResult> aWait = groups.join(key, join(a.memberId(), true, "range", "roundrobin"));
        JoinResult a2 = aWait.join();
        JoinResult b2 = bWait.join();
        assertEquals(2, a2.generationId());
        assertEquals(2, b2.generationId());
        assertEquals(a.memberId(), a2.leaderId(), "the leader stays");
        assertEquals(2, a2.members().size());
        assertTrue(b2.members().isEmpty(), "a follower gets no member list");
        // one vote each: the tie goes to the first member's preference
        assertEquals("range", a2.protocolName());

        CompletableFuture<SyncResult> bSync = groups.sync(key, b2.memberId(), null, 2, "consumer", "range", Map.of());
        assertFalse(bSync.isDone(), "a follower waits for the leader's assignment");
        SyncResult aSync = sync(a2, Map.of(a2.memberId(), new byte[] {1}, b2.memberId(), new byte[] {2}));
        assertArrayEquals(new byte[] {1}, aSync.assignment());
        assertArrayEquals(new byte[] {2}, bSync.join().assignment());
        assertEquals(Errors.NONE, groups.heartbeat(key, b2.memberId(), null, 2));
        assertEquals(Errors.ILLEGAL_GENERATION, groups.heartbeat(key, b2.memberId(), null, 1));
    }

    @Test
    void theProtocolIsTheOneMostMembersPreferAmongThoseAllSupport() {
        JoinResult a = stableMember("cooperative-sticky", "range");
        CompletableFuture<JoinResult> b = newMember("range", "cooperative-sticky");
        CompletableFuture<JoinResult> c = newMember("range", "cooperative-sticky");
        groups.join(key, join(a.memberId(), true, "cooperative-sticky", "range"));
        assertEquals("range", b.join().protocolName());
        assertEquals("range", c.join().protocolName());
    }

    @Test
    void aMemberWithNoProtocolInCommonIsRefused() {
        JoinResult a = stableMember("range");
        JoinResult r = groups.join(key, join("", true, "roundrobin")).join();
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL, r.error());
        JoinResult other = groups.join(key, new JoinRequest("", null, "c", "h", SESSION, REBALANCE, "connect",
                List.of(new Protocol("range", new byte[0])), true)).join();
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL, other.error());
    }

    @Test
    void aGroupAtItsSizeLimitRefusesAnotherMember() {
        groups = new ClassicGroups(new Settings(0, 1000, 60_000, 2, 1 << 20), now::get, new InMemoryGroupLog());
        JoinResult a = stableMember("range");
        newMember("range");
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED, groups.join(key, join("", true, "range")).join().error());
        assertEquals(2, groups.describe(key).members().size());
    }

    @Test
    void aMemberIsRefusedProtocolsOrAnAssignmentLargerThanAMemberMayKeep() {
        groups = new ClassicGroups(new Settings(0, 1000, 60_000, 50, 64), now::get, new InMemoryGroupLog());
        JoinRequest large = new JoinRequest("", null, "c", "h", SESSION, REBALANCE, "consumer",
                List.of(new Protocol("range", new byte[60])), true);
        assertEquals(Errors.MESSAGE_TOO_LARGE, groups.join(key, large).join().error(), "5 + 60 bytes");
        assertNull(groups.describe(key), "nothing was created");

        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> bWait = newMember("range");
        JoinResult a2 = groups.join(key, join(a.memberId(), true, "range")).join();
        JoinResult b2 = bWait.join();
        CompletableFuture<SyncResult> bSync = groups.sync(key, b2.memberId(), null, 2, "consumer", "range", Map.of());
        SyncResult aSync = sync(a2, Map.of(a2.memberId(), new byte[1], b2.memberId(), new byte[65]));
        assertEquals(Errors.MESSAGE_TOO_LARGE, aSync.error(), "the leader learns why");
        assertEquals(Errors.MESSAGE_TOO_LARGE, bSync.join().error(), "and so does every member waiting");
        assertEquals(ClassicGroupState.PREPARING_REBALANCE, groups.describe(key).state(), "nothing was handed out");
    }

    @Test
    void sessionTimeoutsOutsideTheLimitsAreRefused() {
        JoinRequest tooShort = new JoinRequest("", null, "c", "h", 999, REBALANCE, "consumer",
                List.of(new Protocol("range", new byte[0])), true);
        assertEquals(Errors.INVALID_SESSION_TIMEOUT, groups.join(key, tooShort).join().error());
        assertNull(groups.describe(key), "nothing was created");
    }

    @Test
    void aMemberThatStopsHeartbeatingIsEvictedAfterItsSessionTimeoutAndTheGroupRebalances() {
        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> bWait = newMember("range");
        JoinResult a2 = groups.join(key, join(a.memberId(), true, "range")).join();
        JoinResult b2 = bWait.join();
        groups.sync(key, b2.memberId(), null, 2, null, null, Map.of());
        sync(a2, Map.of());
        assertEquals(ClassicGroupState.STABLE, groups.describe(key).state());

        // a heartbeats, b is silent
        for (int t = 0; t < SESSION + 200; t += 500) {
            now.addAndGet(500);
            assertEquals(Errors.NONE, groups.heartbeat(key, a2.memberId(), null, 2));
            groups.expire();
        }
        assertEquals(1, groups.describe(key).members().size(), "b evicted");
        assertEquals(ClassicGroupState.PREPARING_REBALANCE, groups.describe(key).state());
        assertEquals(Errors.REBALANCE_IN_PROGRESS, groups.heartbeat(key, a2.memberId(), null, 2));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, groups.heartbeat(key, b2.memberId(), null, 2));
        JoinResult a3 = groups.join(key, join(a2.memberId(), true, "range")).join();
        assertEquals(3, a3.generationId());
        assertEquals(1, a3.members().size());
    }

    @Test
    void aMemberThatKeepsHeartbeatingButNeverRejoinsIsEvictedAtTheRebalanceDeadline() {
        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> bWait = newMember("range");
        for (int t = 0; t < REBALANCE - 1000; t += 1000) {
            now.addAndGet(1000);
            assertEquals(Errors.REBALANCE_IN_PROGRESS, groups.heartbeat(key, a.memberId(), null, 1));
            groups.expire();
        }
        assertFalse(bWait.isDone());
        now.addAndGet(1000);
        groups.expire();
        JoinResult b = bWait.join();
        assertEquals(Errors.NONE, b.error());
        assertEquals(2, b.generationId());
        assertEquals(b.memberId(), b.leaderId(), "a left the generation, b leads");
        assertEquals(Errors.UNKNOWN_MEMBER_ID, groups.heartbeat(key, a.memberId(), null, 1));
    }

    @Test
    void aMemberThatNeverSendsItsSecondJoinDoesNotHoldTheRebalance() {
        JoinResult a = stableMember("range");
        JoinResult first = groups.join(key, join("", true, "range")).join();
        assertEquals(Errors.MEMBER_ID_REQUIRED, first.error());
        // a pending member alone does not start a rebalance; it expires after the session timeout
        assertEquals(Errors.NONE, groups.heartbeat(key, a.memberId(), null, 1));
        now.addAndGet(SESSION + 1);
        assertEquals(Errors.NONE, groups.heartbeat(key, a.memberId(), null, 1));
        groups.expire();
        assertEquals(Errors.UNKNOWN_MEMBER_ID, groups.join(key, join(first.memberId(), true, "range")).join().error());
    }

    @Test
    void leaveGroupRemovesSeveralMembersAtOnceAndAnswersEachOne() {
        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> b = newMember("range");
        CompletableFuture<JoinResult> c = newMember("range");
        groups.join(key, join(a.memberId(), true, "range"));
        String bId = b.join().memberId();
        String cId = c.join().memberId();
        List<ClassicGroups.LeaveResult> out = groups.leave(key,
                List.of(new LeavingMember(bId, null), new LeavingMember(cId, null), new LeavingMember("nobody", null)));
        assertEquals(List.of(Errors.NONE, Errors.NONE, Errors.UNKNOWN_MEMBER_ID),
                out.stream().map(ClassicGroups.LeaveResult::error).toList());
        assertEquals(ClassicGroupState.PREPARING_REBALANCE, groups.describe(key).state());
        JoinResult a3 = groups.join(key, join(a.memberId(), true, "range")).join();
        assertEquals(3, a3.generationId());
        assertEquals(1, a3.members().size());
        // the last member leaving empties the group; the timer then forgets it here, its saved state stays
        groups.leave(key, List.of(new LeavingMember(a.memberId(), null)));
        assertEquals(ClassicGroupState.EMPTY, groups.describe(key).state());
        groups.expire();
        assertEquals(ClassicGroupState.EMPTY, groups.describe(key).state());
        assertTrue(groups.describe(key).members().isEmpty());
        assertNull(groups.describe(new Key(key.tenant(), "never-used")));
    }

    @Test
    void aLeaderThatNeverSyncsIsEvictedAfterTheRebalanceTimeout() {
        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> b = newMember("range");
        groups.join(key, join(a.memberId(), true, "range")).join();
        JoinResult b2 = b.join();
        CompletableFuture<SyncResult> bSync = groups.sync(key, b2.memberId(), null, 2, null, null, Map.of());
        now.addAndGet(REBALANCE);
        groups.expire();
        assertEquals(Errors.REBALANCE_IN_PROGRESS, bSync.join().error(), "b rejoins");
        assertEquals(1, groups.describe(key).members().size());
        JoinResult b3 = groups.join(key, join(b2.memberId(), true, "range")).join();
        assertEquals(b2.memberId(), b3.leaderId());
    }

    @Test
    void theInitialDelayGathersMembersStartingTogetherIntoOneGeneration() {
        groups = new ClassicGroups(new Settings(1000, 1000, 60_000, 50, 1 << 20), now::get, new InMemoryGroupLog());
        CompletableFuture<JoinResult> a = newMember("range");
        now.addAndGet(600);
        groups.expire();
        CompletableFuture<JoinResult> b = newMember("range");
        now.addAndGet(600);
        groups.expire();
        assertFalse(a.isDone(), "b's join extended the delay");
        now.addAndGet(500);
        groups.expire();
        assertEquals(1, a.join().generationId());
        assertEquals(1, b.join().generationId());
        assertEquals(2, a.join().members().size());
    }

    @Test
    void aRestartedStaticMemberTakesItsPlaceAndFencesTheOldId() {
        JoinResult a = groups.join(key, staticJoin("", "inst-1")).join();
        assertEquals(Errors.NONE, a.error(), "static members need no second join");
        sync(a, Map.of(a.memberId(), new byte[] {9}));
        JoinResult again = groups.join(key, staticJoin("", "inst-1")).join();
        assertNotEquals(a.memberId(), again.memberId());
        assertEquals(Errors.FENCED_INSTANCE_ID, groups.heartbeat(key, a.memberId(), "inst-1", 1));
        assertEquals(Errors.FENCED_INSTANCE_ID, groups.validateCommit(key, a.memberId(), "inst-1", 1));
        assertEquals(1, groups.describe(key).members().size());
        List<ClassicGroups.LeaveResult> out = groups.leave(key, List.of(new LeavingMember("", "inst-1")));
        assertEquals(Errors.NONE, out.get(0).error());
        assertEquals(again.memberId(), out.get(0).memberId());
    }

    @Test
    void offsetCommitsFollowKafkasMembershipRules() {
        Key other = new Key(key.tenant(), "offsets-only");
        assertEquals(Errors.NONE, groups.validateCommit(other, "", null, -1), "a group used only for offsets");
        assertEquals(Errors.ILLEGAL_GENERATION, groups.validateCommit(other, "m", null, 3));

        JoinResult a = newMember("range").join();
        assertEquals(Errors.REBALANCE_IN_PROGRESS, groups.validateCommit(key, a.memberId(), null, 1),
                "waiting for the assignment");
        sync(a, Map.of());
        assertEquals(Errors.NONE, groups.validateCommit(key, a.memberId(), null, 1));
        assertEquals(Errors.ILLEGAL_GENERATION, groups.validateCommit(key, a.memberId(), null, 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, groups.validateCommit(key, "stranger", null, 1));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, groups.validateCommit(key, "", null, -1),
                "no anonymous commits into a group with members");
        newMember("range");
        assertEquals(Errors.NONE, groups.validateCommit(key, a.memberId(), null, 1),
                "members still commit what they consumed while the group prepares a rebalance");
    }

    @Test
    void deleteIsRefusedWhileTheGroupHasMembers() {
        JoinResult a = newMember("range").join();
        assertEquals(Errors.NON_EMPTY_GROUP, groups.beginDelete(key));
        groups.leave(key, List.of(new LeavingMember(a.memberId(), null)));
        assertEquals(Errors.NONE, groups.beginDelete(key));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE,
                groups.join(key, join("", true, "range")).join().error(), "a join waits out the delete");
        groups.deleted(key);
        assertEquals(Errors.MEMBER_ID_REQUIRED, groups.join(key, join("", true, "range")).join().error());
    }

    @Test
    void aStoppingBrokerAnswersEveryWaitingJoinAndSync() {
        JoinResult a = stableMember("range");
        CompletableFuture<JoinResult> b = newMember("range");
        assertFalse(b.isDone());
        groups.releaseWaiters(Errors.NOT_COORDINATOR);
        assertEquals(Errors.NOT_COORDINATOR, b.join().error());
    }

    /**
     * Eight members join, sync and heartbeat from eight threads at once, each retrying as a Kafka client does; they
     * must converge on one generation holding all eight, with one leader whose assignment reaches every member.
     */
    @Test
    void concurrentMembersConvergeOnOneGenerationWithEveryMember() throws Exception {
        ClassicGroups real = new ClassicGroups(new Settings(0, 1000, 60_000, 50, 1 << 20),
                () -> System.nanoTime() / 1_000_000, new InMemoryGroupLog());
        int n = 8;
        CyclicBarrier start = new CyclicBarrier(n);
        Map<String, Integer> generations = new ConcurrentHashMap<>();
        Set<String> leaders = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<String>> done = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            done.add(pool.submit(() -> {
                start.await();
                String id = "";
                while (true) {
                    JoinResult r = real.join(key, join(id, true, "range")).get(30, TimeUnit.SECONDS);
                    if (r.error() == Errors.MEMBER_ID_REQUIRED) {
                        id = r.memberId();
                        continue;
                    }
                    assertEquals(Errors.NONE, r.error());
                    Map<String, byte[]> assignment = new HashMap<>();
                    for (ClassicGroups.MemberMetadata m : r.members()) {
                        assignment.put(m.memberId(), m.memberId().getBytes(StandardCharsets.UTF_8));
                    }
                    SyncResult s = real.sync(key, id, null, r.generationId(), null, null, assignment)
                            .get(30, TimeUnit.SECONDS);
                    if (s.error() != Errors.NONE) {
                        continue; // REBALANCE_IN_PROGRESS: rejoin
                    }
                    assertEquals(id, new String(s.assignment(), StandardCharsets.UTF_8));
                    // heartbeat until the generation holds everyone (then done) or a rebalance starts (rejoin)
                    while (real.heartbeat(key, id, null, r.generationId()) == Errors.NONE) {
                        ClassicGroups.GroupView v = real.describe(key);
                        if (v.members().size() == n && v.state() == ClassicGroupState.STABLE) {
                            generations.put(id, r.generationId());
                            if (!r.members().isEmpty()) {
                                leaders.add(id);
                            }
                            return id;
                        }
                        Thread.sleep(5);
                    }
                }
            }));
        }
        for (Future<String> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertEquals(n, generations.size());
        assertEquals(1, Set.copyOf(generations.values()).size(), generations.toString());
        assertEquals(1, leaders.size());
        assertEquals(n, real.describe(key).members().size());
        assertEquals(ClassicGroupState.STABLE, real.describe(key).state());
    }
}
