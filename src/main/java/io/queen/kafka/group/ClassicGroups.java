package io.queen.kafka.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Membership of the Kafka groups this broker coordinates with the classic protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup): who is in a group, its generation, the protocol chosen, the leader and the assignment the leader sent.
 * The assignors run in the clients; this class only relays metadata to the leader and assignments to the members,
 * as Apache Kafka's classic group coordinator does. Offsets are not here (they are Queen cursors).
 *
 * <p>A group is held in memory while this broker coordinates it, and its state outlives the broker in a
 * {@link GroupLog}: loaded on the group's first use here, saved at each completed join phase (before any member
 * learns the new generation) and each assignment (before any member receives it), as Apache Kafka's coordinator
 * writes a group to {@code __consumer_offsets}. A save refused (another broker moved the group on) or failed drops
 * the copy here: its waiting members are answered NOT_COORDINATOR and find the group's coordinator again, which
 * loads what was saved. So a generation, once handed out, is never handed out again with other members.
 *
 * <p>Group lifecycle ({@link ClassicGroupState}, applied by {@link ClassicGroup}): Empty → PreparingRebalance
 * (members join; completes when every known member has rejoined, or at the rebalance deadline, evicting those that
 * have not) → CompletingRebalance (the leader's SyncGroup carries the assignment) → Stable; a join, leave or
 * eviction sends it back to PreparingRebalance. A member whose session timeout passes without a heartbeat (and that
 * is not waiting in a JoinGroup or SyncGroup) is evicted by {@link #expire}.
 *
 * <p>Thread-safety: every group's state is guarded by that group's monitor, and every transition (a request or an
 * expiry) runs wholly under it, so joins, heartbeats and leaves from several connections are applied in one order.
 * Responses that wait (JoinGroup, SyncGroup) are completed only after the monitor is released, so no caller's
 * continuation ever runs under it. The map of groups is this class's alone: a group leaves it only while marked
 * {@code Dead} under its monitor (one that dropped itself is taken out before the monitor is released); a request
 * that picked up the stale object sees {@code Dead} and starts over on the map's current one. The clock is passed
 * in, so tests drive time.
 */
final class ClassicGroups {
    /** A group's identity: groups of two tenants never meet. */
    record Key(UUID tenant, String groupId) {
    }

    /** {@code maxMemberBytes}: most bytes of one member's protocols, and of one member's assignment. */
    record Settings(int initialRebalanceDelayMs, int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSize,
            long maxMemberBytes) {
    }

    /** One protocol a member supports (assignor name + its subscription metadata), in the member's preference order. */
    record Protocol(String name, byte[] metadata) {
    }

    /** What a JoinGroup asks. {@code rebalanceTimeoutMs} below 0 means "as the session timeout" (version 0). */
    record JoinRequest(String memberId, String instanceId, String clientId, String clientHost, int sessionTimeoutMs,
            int rebalanceTimeoutMs, String protocolType, List<Protocol> protocols, boolean requireKnownMemberId) {
    }

    /** A JoinGroup's answer; {@code members} is non-empty only for the leader. */
    record JoinResult(Errors error, String memberId, int generationId, String protocolType, String protocolName,
            String leaderId, List<MemberMetadata> members) {
        static JoinResult error(Errors e, String memberId) {
            return new JoinResult(e, memberId == null ? "" : memberId, -1, null, null, "", List.of());
        }
    }

    record MemberMetadata(String memberId, String instanceId, byte[] metadata) {
    }

    record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(Errors e) {
            return new SyncResult(e, null, null, new byte[0]);
        }
    }

    /** One member as DescribeGroups shows it (metadata and assignment only while the group is Stable). */
    record MemberView(String memberId, String instanceId, String clientId, String clientHost, byte[] metadata,
            byte[] assignment, java.time.Instant joinedAt) {
    }

    /** One group as ListGroups / DescribeGroups show it. */
    record GroupView(String groupId, ClassicGroupState state, String protocolType, String protocolName,
            List<MemberView> members) {
    }

    /**
     * A member a LeaveGroup names: by {@code memberId}, by {@code instanceId} (its group.instance.id), or by both
     * (then they must match).
     */
    record LeavingMember(String memberId, String instanceId) {
    }

    /** The result of one member's LeaveGroup. */
    record LeaveResult(String memberId, String instanceId, Errors error) {
    }

    /**
     * The answer to a JoinGroup or SyncGroup carrying more than a member may keep. Apache Kafka's classic coordinator
     * answers UNKNOWN_SERVER_ERROR when a group's record is too large for its log; the Java client treats either
     * code as fatal to the join or sync (its poll throws rather than retrying), and this one's message says what is
     * wrong where that one's reads as a broker fault.
     */
    static final Errors TOO_LARGE = Errors.MESSAGE_TOO_LARGE;

    /** The bytes a member's protocols take: their names (a byte a character) and metadata. */
    private static long bytes(List<Protocol> protocols) {
        long n = 0;
        for (Protocol p : protocols) {
            n += (p.name() == null ? 0 : p.name().length()) + (p.metadata() == null ? 0 : p.metadata().length);
        }
        return n;
    }

    private final ConcurrentHashMap<Key, ClassicGroup> groups = new ConcurrentHashMap<>();
    /** Generations completed by this broker's groups (each one a rebalance), since start. */
    private final LongAdder rebalances = new LongAdder();

    long rebalances() {
        return rebalances.sum();
    }

    /** Members of the groups this broker coordinates now (a racy sum: read for a gauge, never for a decision). */
    int members() {
        int n = 0;
        for (ClassicGroup g : groups.values()) {
            n += g.memberCount();
        }
        return n;
    }
    private final Settings settings;
    private final LongSupplier clockMs;
    private final GroupLog log;

    ClassicGroups(Settings settings, LongSupplier clockMs, GroupLog log) {
        this.settings = settings;
        this.clockMs = clockMs;
        this.log = log;
    }

    // ---- requests ----

    CompletableFuture<JoinResult> join(Key key, JoinRequest r) {
        if (r.sessionTimeoutMs() < settings.minSessionTimeoutMs()
                || r.sessionTimeoutMs() > settings.maxSessionTimeoutMs()) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, r.memberId()));
        }
        if (r.protocolType() == null || r.protocolType().isEmpty() || r.protocols().isEmpty()) {
            return CompletableFuture.completedFuture(
                    JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, r.memberId()));
        }
        if (bytes(r.protocols()) > settings.maxMemberBytes()) {
            return CompletableFuture.completedFuture(JoinResult.error(TOO_LARGE, r.memberId()));
        }
        boolean newMember = r.memberId() == null || r.memberId().isEmpty();
        return onGroup(key, newMember, g -> g.join(r),
                () -> CompletableFuture.completedFuture(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, r.memberId())),
                () -> CompletableFuture.completedFuture(
                        JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, r.memberId())));
    }

    CompletableFuture<SyncResult> sync(Key key, String memberId, String instanceId, int generationId,
            String protocolType, String protocolName, Map<String, byte[]> assignments) {
        return onGroup(key, false, g -> g.sync(memberId, instanceId, generationId, protocolType, protocolName,
                        assignments),
                () -> CompletableFuture.completedFuture(SyncResult.error(Errors.UNKNOWN_MEMBER_ID)),
                () -> CompletableFuture.completedFuture(SyncResult.error(Errors.COORDINATOR_NOT_AVAILABLE)));
    }

    Errors heartbeat(Key key, String memberId, String instanceId, int generationId) {
        return onGroup(key, false, g -> g.heartbeat(memberId, instanceId, generationId),
                () -> Errors.UNKNOWN_MEMBER_ID, () -> Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /** Removes members ({@code memberId} and/or {@code instanceId} each); one result per entry, in order. */
    List<LeaveResult> leave(Key key, List<LeavingMember> leaving) {
        return onGroup(key, false, g -> g.leave(leaving), () -> answerAll(leaving, Errors.UNKNOWN_MEMBER_ID),
                () -> answerAll(leaving, Errors.COORDINATOR_NOT_AVAILABLE));
    }

    private static List<LeaveResult> answerAll(List<LeavingMember> leaving, Errors error) {
        return leaving.stream().map(i -> new LeaveResult(i.memberId(), i.instanceId(), error)).toList();
    }

    /**
     * Whether an OffsetCommit with this identity may store offsets now (Kafka's rules): a commit without
     * generation ({@code generationId < 0}, no member) only to a group without members; otherwise the member must
     * be in the group's current generation and the group not waiting for its leader's assignment. A valid commit
     * counts as a heartbeat.
     */
    Errors validateCommit(Key key, String memberId, String instanceId, int generationId) {
        return validateCommit(key, memberId, instanceId, generationId, false);
    }

    /**
     * {@link #validateCommit}, for a TxnOffsetCommit when {@code transactional}: as Apache Kafka, a commit without
     * member and generation is taken whatever the group's state (older TxnOffsetCommit versions carry neither), and
     * a member of the current generation may commit while the group awaits its leader's assignment.
     */
    Errors validateCommit(Key key, String memberId, String instanceId, int generationId, boolean transactional) {
        return onGroup(key, false, g -> g.validateCommit(memberId, instanceId, generationId, transactional),
                () -> generationId < 0 ? Errors.NONE : Errors.ILLEGAL_GENERATION,
                () -> Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /** Whether the group is held in memory here with members (no database look-up). */
    boolean held(Key key) {
        ClassicGroup g = groups.get(key);
        if (g == null) {
            return false;
        }
        synchronized (g) {
            return g.loaded() && g.state() != ClassicGroupState.DEAD && !g.vacant();
        }
    }

    /** The group, or null when this broker holds no membership for it. */
    GroupView describe(Key key) {
        return onGroup(key, false, ClassicGroup::view, () -> null,
                () -> new GroupView(key.groupId(), ClassicGroupState.DEAD, "", "", List.of()));
    }

    /** Every group of the tenant with membership state here. */
    List<GroupView> list(UUID tenant) {
        List<GroupView> out = new ArrayList<>();
        for (ClassicGroup g : groups.values()) {
            if (g.key().tenant().equals(tenant)) {
                GroupView v = onGroup(g.key(), false, ClassicGroup::view, () -> null, () -> null);
                if (v != null) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /**
     * Starts deleting a group: answers NON_EMPTY_GROUP while it has members, else marks it Dead (every request on
     * it answers COORDINATOR_NOT_AVAILABLE, retried by clients) until {@link #deleted} is called.
     */
    Errors beginDelete(Key key) {
        return onGroup(key, true, ClassicGroup::beginDelete, () -> Errors.NONE,
                () -> Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /**
     * Ends a deletion started by {@link #beginDelete}: the group and its saved state are forgotten, a later join
     * starts afresh.
     */
    void deleted(Key key) {
        ClassicGroup g = groups.get(key);
        if (g != null) {
            synchronized (g) {
                if (g.state() == ClassicGroupState.DEAD) {
                    try {
                        log.delete(key);
                    } catch (GroupLog.Unavailable e) {
                        // an Empty group's saved state left behind only keeps its generation counting up
                    }
                    groups.remove(key, g);
                }
            }
        }
    }

    /**
     * Forgets every group {@code keep} rejects (this broker no longer coordinates it): members waiting in JoinGroup
     * or SyncGroup are answered NOT_COORDINATOR and look for the coordinator, which continues from the saved state.
     */
    void dropUnless(java.util.function.Predicate<Key> keep) {
        for (ClassicGroup g : groups.values()) {
            if (keep.test(g.key())) {
                continue;
            }
            List<Runnable> out;
            synchronized (g) {
                if (g.state() == ClassicGroupState.DEAD) {
                    continue;
                }
                g.abandon();
                out = settle(g);
            }
            out.forEach(Runnable::run);
        }
    }

    /**
     * Applies every timer due at the clock's time: session expiries (evicted, the group rebalances), pending
     * members that never sent their second JoinGroup, rebalance deadlines (members that did not rejoin are evicted,
     * the generation completes), and members that sent no SyncGroup within the rebalance timeout. Forgets Empty
     * groups. Called periodically by the coordinator; tests call it directly.
     */
    void expire() {
        for (ClassicGroup g : groups.values()) {
            List<Runnable> out;
            synchronized (g) {
                if (g.state() == ClassicGroupState.DEAD || !g.loaded()) {
                    continue;
                }
                g.expire(clockMs.getAsLong());
                if (g.vacant()) {
                    forget(g);
                }
                out = settle(g);
            }
            out.forEach(Runnable::run);
        }
    }

    /**
     * Answers every JoinGroup and SyncGroup still waiting with {@code error} (a stopping broker: clients look for
     * their coordinator again instead of holding the drain until their rebalance timeout).
     */
    void releaseWaiters(Errors error) {
        for (ClassicGroup g : groups.values()) {
            List<Runnable> out;
            synchronized (g) {
                g.releaseWaiters(error);
                out = settle(g);
            }
            out.forEach(Runnable::run);
        }
    }

    /**
     * Runs {@code action} under the group's monitor, then the completions it queued. A group not in memory is
     * loaded from the log first; one with no saved state is created (Empty) when {@code create}, otherwise
     * {@code absent} answers. A group being deleted, or one the log cannot be read for, answers {@code deleting}.
     */
    private <R> R onGroup(Key key, boolean create, Function<ClassicGroup, R> action,
            java.util.function.Supplier<R> absent, java.util.function.Supplier<R> deleting) {
        while (true) {
            ClassicGroup g = groups.computeIfAbsent(key,
                    k -> new ClassicGroup(k, settings, clockMs, log).countingRebalancesIn(rebalances));
            R result;
            List<Runnable> out;
            synchronized (g) {
                if (g.state() == ClassicGroupState.DEAD) {
                    if (groups.get(key) == g) {
                        return deleting.get();
                    }
                    continue; // forgotten meanwhile: start over on the current one
                }
                if (!g.loaded()) {
                    GroupLog.Saved saved;
                    try {
                        saved = log.load(key);
                    } catch (GroupLog.Unavailable e) {
                        forget(g);
                        return deleting.get();
                    }
                    if (saved == null && !create) {
                        forget(g);
                        return absent.get();
                    }
                    g.restore(saved, clockMs.getAsLong());
                }
                result = action.apply(g);
                out = settle(g);
            }
            out.forEach(Runnable::run);
            return result;
        }
    }

    /** Under {@code g}'s monitor: marks it Dead and takes it out of the map, so the next request starts afresh. */
    private void forget(ClassicGroup g) {
        g.transitionTo(ClassicGroupState.DEAD);
        groups.remove(g.key(), g);
    }

    /**
     * Under {@code g}'s monitor, after a request or timer was applied to it: takes it out of the map if it dropped
     * itself (a save refused or failed), and answers the completions it queued, to run once the monitor is released.
     */
    private List<Runnable> settle(ClassicGroup g) {
        if (g.abandoned()) {
            groups.remove(g.key(), g);
        }
        return g.drain();
    }
}
