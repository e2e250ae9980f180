package io.queen.kafka.group;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Group lifecycle: Empty → PreparingRebalance (members join; completes when every known member has rejoined, or
 * at the rebalance deadline, evicting those that have not) → CompletingRebalance (the leader's SyncGroup carries the
 * assignment) → Stable; a join, leave or eviction sends it back to PreparingRebalance. A member whose session timeout
 * passes without a heartbeat (and that is not waiting in a JoinGroup or SyncGroup) is evicted by {@link #expire}.
 *
 * <p>Thread-safety: every group's state is guarded by that group's monitor, and every transition (a request or an
 * expiry) runs wholly under it, so joins, heartbeats and leaves from several connections are applied in one order.
 * Responses that wait (JoinGroup, SyncGroup) are completed only after the monitor is released, so no caller's
 * continuation ever runs under it. A group leaves the map only while marked {@code Dead} under its monitor; a
 * request that picked up the stale object sees {@code Dead} and starts over on the map's current one. The clock is
 * passed in, so tests drive time.
 */
final class ClassicGroups {
    /** Group states, with the names Kafka's DescribeGroups and ListGroups use. */
    enum State {
        EMPTY("Empty"), PREPARING_REBALANCE("PreparingRebalance"), COMPLETING_REBALANCE("CompletingRebalance"),
        STABLE("Stable"), DEAD("Dead");

        final String wire;

        State(String wire) {
            this.wire = wire;
        }
    }

    /** A group's identity: groups of two tenants never meet. */
    record Key(UUID tenant, String groupId) {
    }

    record Settings(int initialRebalanceDelayMs, int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSize) {
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
    record GroupView(String groupId, State state, String protocolType, String protocolName, List<MemberView> members) {
    }

    /** The result of one member's LeaveGroup. */
    record LeaveResult(String memberId, String instanceId, Errors error) {
    }

    private static final byte[] NONE = new byte[0];

    private final ConcurrentHashMap<Key, Group> groups = new ConcurrentHashMap<>();
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
    List<LeaveResult> leave(Key key, List<String[]> identities) {
        return onGroup(key, false, g -> g.leave(identities),
                () -> identities.stream().map(i -> new LeaveResult(i[0], i[1], Errors.UNKNOWN_MEMBER_ID)).toList(),
                () -> identities.stream().map(i -> new LeaveResult(i[0], i[1], Errors.COORDINATOR_NOT_AVAILABLE))
                        .toList());
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

    /** The group, or null when this broker holds no membership for it. */
    GroupView describe(Key key) {
        return onGroup(key, false, Group::view, () -> null,
                () -> new GroupView(key.groupId(), State.DEAD, "", "", List.of()));
    }

    /** Every group of the tenant with membership state here. */
    List<GroupView> list(UUID tenant) {
        List<GroupView> out = new ArrayList<>();
        for (Group g : groups.values()) {
            if (g.key.tenant().equals(tenant)) {
                GroupView v = onGroup(g.key, false, Group::view, () -> null, () -> null);
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
        return onGroup(key, true, Group::beginDelete, () -> Errors.NONE, () -> Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /**
     * Ends a deletion started by {@link #beginDelete}: the group and its saved state are forgotten, a later join
     * starts afresh.
     */
    void deleted(Key key) {
        Group g = groups.get(key);
        if (g != null) {
            synchronized (g) {
                if (g.state == State.DEAD) {
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
        for (Group g : groups.values()) {
            if (keep.test(g.key)) {
                continue;
            }
            List<Runnable> out;
            synchronized (g) {
                if (g.state == State.DEAD) {
                    continue;
                }
                g.abandon();
                out = g.drain();
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
        for (Group g : groups.values()) {
            List<Runnable> out;
            synchronized (g) {
                if (g.state == State.DEAD || !g.loaded) {
                    continue;
                }
                g.expire(clockMs.getAsLong());
                if (g.state == State.EMPTY && g.members.isEmpty() && g.pending.isEmpty()) {
                    g.state = State.DEAD;
                    groups.remove(g.key, g);
                }
                out = g.drain();
            }
            out.forEach(Runnable::run);
        }
    }

    /**
     * Answers every JoinGroup and SyncGroup still waiting with {@code error} (a stopping broker: clients look for
     * their coordinator again instead of holding the drain until their rebalance timeout).
     */
    void releaseWaiters(Errors error) {
        for (Group g : groups.values()) {
            List<Runnable> out;
            synchronized (g) {
                for (Member m : g.members.values()) {
                    g.complete(m.joining, JoinResult.error(error, m.memberId));
                    g.complete(m.syncing, SyncResult.error(error));
                    m.joining = null;
                    m.syncing = null;
                }
                out = g.drain();
            }
            out.forEach(Runnable::run);
        }
    }

    /**
     * Runs {@code action} under the group's monitor, then the completions it queued. A group not in memory is
     * loaded from the log first; one with no saved state is created (Empty) when {@code create}, otherwise
     * {@code absent} answers. A group being deleted, or one the log cannot be read for, answers {@code deleting}.
     */
    private <R> R onGroup(Key key, boolean create, Function<Group, R> action, java.util.function.Supplier<R> absent,
            java.util.function.Supplier<R> deleting) {
        while (true) {
            Group g = groups.computeIfAbsent(key, Group::new);
            R result;
            List<Runnable> out;
            synchronized (g) {
                if (g.state == State.DEAD) {
                    if (groups.get(key) == g) {
                        return deleting.get();
                    }
                    continue; // forgotten meanwhile: start over on the current one
                }
                if (!g.loaded) {
                    GroupLog.Saved saved;
                    try {
                        saved = log.load(key);
                    } catch (GroupLog.Unavailable e) {
                        g.state = State.DEAD;
                        groups.remove(key, g);
                        return deleting.get();
                    }
                    if (saved == null && !create) {
                        g.state = State.DEAD;
                        groups.remove(key, g);
                        return absent.get();
                    }
                    g.restore(saved, clockMs.getAsLong());
                }
                result = action.apply(g);
                out = g.drain();
            }
            out.forEach(Runnable::run);
            return result;
        }
    }

    private static final class Member {
        final String memberId;
        final String instanceId;
        String clientId;
        String clientHost;
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        String protocolType;
        List<Protocol> protocols;
        byte[] assignment = NONE;
        /** Wall-clock time of the first join under this member id (shown, never compared). */
        final java.time.Instant joinedAt = java.time.Instant.now();
        CompletableFuture<JoinResult> joining;
        CompletableFuture<SyncResult> syncing;
        long lastHeartbeatMs;

        Member(String memberId, JoinRequest r, long now) {
            this.memberId = memberId;
            this.instanceId = r.instanceId();
            update(r, now);
        }

        Member(GroupLog.SavedMember s, long now) {
            this.memberId = s.memberId();
            this.instanceId = s.instanceId();
            clientId = s.clientId();
            clientHost = s.clientHost();
            sessionTimeoutMs = s.sessionTimeoutMs();
            rebalanceTimeoutMs = s.rebalanceTimeoutMs();
            protocolType = s.protocolType();
            protocols = s.protocols();
            assignment = s.assignment() == null ? NONE : s.assignment();
            lastHeartbeatMs = now;
        }

        GroupLog.SavedMember saved() {
            return new GroupLog.SavedMember(memberId, instanceId, clientId, clientHost, sessionTimeoutMs,
                    rebalanceTimeoutMs, protocolType, protocols, assignment);
        }

        void update(JoinRequest r, long now) {
            clientId = r.clientId();
            clientHost = r.clientHost();
            sessionTimeoutMs = r.sessionTimeoutMs();
            rebalanceTimeoutMs = r.rebalanceTimeoutMs() < 0 ? r.sessionTimeoutMs() : r.rebalanceTimeoutMs();
            protocolType = r.protocolType();
            protocols = r.protocols();
            lastHeartbeatMs = now;
        }

        byte[] metadata(String protocol) {
            for (Protocol p : protocols) {
                if (p.name().equals(protocol)) {
                    return p.metadata();
                }
            }
            return NONE;
        }

        boolean sameProtocols(List<Protocol> other) {
            if (other.size() != protocols.size()) {
                return false;
            }
            for (int i = 0; i < other.size(); i++) {
                Protocol a = protocols.get(i);
                Protocol b = other.get(i);
                if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** One group; every field is guarded by its monitor. */
    private final class Group {
        final Key key;
        State state = State.EMPTY;
        int generationId;
        String protocolType;
        String protocolName;
        String leaderId;
        final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
        /** Members told MEMBER_ID_REQUIRED, until their second JoinGroup or this deadline (ms). */
        final HashMap<String, Long> pending = new HashMap<>();
        /** group.instance.id → the member id currently holding it. */
        final HashMap<String, String> staticMembers = new HashMap<>();
        long rebalanceDeadlineMs;
        boolean initialDelay;
        long initialDelayCapMs;
        long syncDeadlineMs;
        /** Whether the saved state was read (a group is loaded before its first request is applied). */
        boolean loaded;
        /** The version of the saved state this copy continues (0: nothing saved yet). */
        long version;
        private final List<Runnable> outbox = new ArrayList<>();

        Group(Key key) {
            this.key = key;
        }

        /**
         * Continues from the saved state (null: a new group). Members get a full session from now to reach this
         * broker; a group saved before its assignment was handed out waits for the members' SyncGroup again.
         */
        void restore(GroupLog.Saved s, long now) {
            loaded = true;
            if (s == null) {
                return;
            }
            version = s.version();
            generationId = s.generation();
            protocolType = s.protocolType();
            protocolName = s.protocolName();
            leaderId = s.leaderId();
            for (GroupLog.SavedMember sm : s.members()) {
                Member m = new Member(sm, now);
                members.put(m.memberId, m);
                if (m.instanceId != null) {
                    staticMembers.put(m.instanceId, m.memberId);
                }
            }
            if (members.isEmpty()) {
                state = State.EMPTY;
            } else if (State.STABLE.wire.equals(s.state())) {
                state = State.STABLE;
            } else {
                state = State.COMPLETING_REBALANCE;
                syncDeadlineMs = now + maxRebalanceTimeout();
            }
        }

        /**
         * Saves the state as it is now; false when refused or failed, in which case this copy is dropped
         * ({@link #abandon}) and the caller must not hand anything out.
         */
        boolean save() {
            List<GroupLog.SavedMember> list = new ArrayList<>();
            for (Member m : members.values()) {
                list.add(m.saved());
            }
            long next;
            try {
                next = log.save(key, version, new GroupLog.Saved(version, generationId, state.wire, protocolType,
                        protocolName, leaderId, list));
            } catch (GroupLog.Unavailable e) {
                next = -1;
            }
            if (next < 0) {
                abandon();
                return false;
            }
            version = next;
            return true;
        }

        /** Drops this copy: every waiting member is told to find its coordinator again. */
        void abandon() {
            for (Member m : members.values()) {
                complete(m.joining, JoinResult.error(Errors.NOT_COORDINATOR, m.memberId));
                complete(m.syncing, SyncResult.error(Errors.NOT_COORDINATOR));
                m.joining = null;
                m.syncing = null;
            }
            state = State.DEAD;
            groups.remove(key, this);
        }

        List<Runnable> drain() {
            if (outbox.isEmpty()) {
                return List.of();
            }
            List<Runnable> out = new ArrayList<>(outbox);
            outbox.clear();
            return out;
        }

        <T> void complete(CompletableFuture<T> f, T value) {
            if (f != null) {
                outbox.add(() -> f.complete(value));
            }
        }

        // ---- JoinGroup ----

        CompletableFuture<JoinResult> join(JoinRequest r) {
            long now = clockMs.getAsLong();
            String memberId = r.memberId() == null ? "" : r.memberId();
            if (memberId.isEmpty()) {
                if (!supports(r)) {
                    return done(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
                }
                if (r.instanceId() != null && staticMembers.containsKey(r.instanceId())) {
                    return replaceStatic(r, now);
                }
                if (members.size() + pending.size() >= settings.maxSize()) {
                    return done(JoinResult.error(Errors.GROUP_MAX_SIZE_REACHED, memberId));
                }
                String newId = (r.instanceId() != null ? r.instanceId() : r.clientId()) + "-" + UUID.randomUUID();
                if (r.instanceId() == null && r.requireKnownMemberId()) {
                    // the client learns its id first and joins again with it (a client that dies in between
                    // never becomes a member it would have to time out of)
                    pending.put(newId, now + r.sessionTimeoutMs());
                    return done(JoinResult.error(Errors.MEMBER_ID_REQUIRED, newId));
                }
                return addMember(newId, r, now);
            }
            if (pending.remove(memberId) != null) {
                if (!supports(r)) {
                    maybeCompleteJoin(now);
                    return done(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
                }
                return addMember(memberId, r, now);
            }
            Member m = members.get(memberId);
            if (m == null) {
                return done(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            }
            if (fenced(r.instanceId(), memberId)) {
                return done(JoinResult.error(Errors.FENCED_INSTANCE_ID, memberId));
            }
            if (!r.protocolType().equals(protocolType) || !supports(r)) {
                return done(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
            }
            switch (state) {
                case PREPARING_REBALANCE -> {
                    return rejoin(m, r, now);
                }
                case COMPLETING_REBALANCE -> {
                    if (m.sameProtocols(r.protocols())) {
                        m.lastHeartbeatMs = now;
                        return done(currentJoin(m)); // the answer it missed: same generation
                    }
                    return rejoin(m, r, now);
                }
                case STABLE -> {
                    if (memberId.equals(leaderId) || !m.sameProtocols(r.protocols())) {
                        return rejoin(m, r, now); // the leader rejoining means its view of the topics changed
                    }
                    m.lastHeartbeatMs = now;
                    return done(currentJoin(m));
                }
                default -> {
                    return done(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
                }
            }
        }

        /** A known member joins again: it waits for the rebalance (started now unless under way). */
        private CompletableFuture<JoinResult> rejoin(Member m, JoinRequest r, long now) {
            m.update(r, now);
            // a second JoinGroup replaces the first one's wait (the client gave up on it)
            complete(m.joining, JoinResult.error(Errors.REBALANCE_IN_PROGRESS, m.memberId));
            return awaitJoin(m, now);
        }

        /** {@code m} waits for the current join phase to complete, started now unless one is under way. */
        private CompletableFuture<JoinResult> awaitJoin(Member m, long now) {
            CompletableFuture<JoinResult> f = new CompletableFuture<>();
            m.joining = f;
            if (state == State.PREPARING_REBALANCE) {
                maybeCompleteJoin(now);
            } else {
                prepareRebalance(now);
            }
            return f;
        }

        private CompletableFuture<JoinResult> addMember(String memberId, JoinRequest r, long now) {
            Member m = new Member(memberId, r, now);
            members.put(memberId, m);
            if (m.instanceId != null) {
                staticMembers.put(m.instanceId, memberId);
            }
            if (leaderId == null) {
                leaderId = memberId;
            }
            if (protocolType == null) {
                protocolType = r.protocolType();
            }
            if (state == State.PREPARING_REBALANCE && initialDelay) {
                // each newcomer during the initial delay extends it, up to the rebalance timeout
                rebalanceDeadlineMs = Math.min(now + settings.initialRebalanceDelayMs(), initialDelayCapMs);
            }
            return awaitJoin(m, now);
        }

        /**
         * A static member (group.instance.id) joins without its member id (a restarted process): it takes the place
         * of the old member under a new id, the old id is fenced, and the group rebalances.
         */
        private CompletableFuture<JoinResult> replaceStatic(JoinRequest r, long now) {
            String oldId = staticMembers.get(r.instanceId());
            Member old = members.remove(oldId);
            String newId = r.instanceId() + "-" + UUID.randomUUID();
            Member m = new Member(newId, r, now);
            if (old != null) {
                m.assignment = old.assignment;
                complete(old.joining, JoinResult.error(Errors.FENCED_INSTANCE_ID, oldId));
                complete(old.syncing, SyncResult.error(Errors.FENCED_INSTANCE_ID));
            }
            members.put(newId, m);
            staticMembers.put(r.instanceId(), newId);
            if (oldId.equals(leaderId) || leaderId == null) {
                leaderId = newId;
            }
            return awaitJoin(m, now);
        }

        /** Whether a member with these protocols can be in this group (Kafka's supportsProtocols). */
        private boolean supports(JoinRequest r) {
            if (members.isEmpty()) {
                return true;
            }
            if (!r.protocolType().equals(protocolType)) {
                return false;
            }
            List<String> candidates = candidates();
            for (Protocol p : r.protocols()) {
                if (candidates.contains(p.name())) {
                    return true;
                }
            }
            return false;
        }

        /** The protocols every member supports, in the first member's preference order. */
        private List<String> candidates() {
            List<String> out = null;
            for (Member m : members.values()) {
                List<String> names = m.protocols.stream().map(Protocol::name).toList();
                if (out == null) {
                    out = new ArrayList<>(names);
                } else {
                    out.retainAll(names);
                }
            }
            return out == null ? List.of() : out;
        }

        /** Kafka's vote: each member votes for its most preferred candidate; most votes wins, ties by order. */
        private String selectProtocol() {
            List<String> candidates = candidates();
            int[] votes = new int[candidates.size()];
            for (Member m : members.values()) {
                for (Protocol p : m.protocols) {
                    int i = candidates.indexOf(p.name());
                    if (i >= 0) {
                        votes[i]++;
                        break;
                    }
                }
            }
            int best = 0;
            for (int i = 1; i < votes.length; i++) {
                if (votes[i] > votes[best]) {
                    best = i;
                }
            }
            return candidates.get(best);
        }

        private void prepareRebalance(long now) {
            if (state == State.COMPLETING_REBALANCE) {
                // the assignment being handed out is void: members waiting in SyncGroup rejoin
                for (Member m : members.values()) {
                    m.assignment = NONE;
                    complete(m.syncing, SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                    m.syncing = null;
                }
            }
            boolean fromEmpty = state == State.EMPTY;
            state = State.PREPARING_REBALANCE;
            if (fromEmpty && settings.initialRebalanceDelayMs() > 0) {
                initialDelay = true;
                initialDelayCapMs = now + maxRebalanceTimeout();
                rebalanceDeadlineMs = Math.min(now + settings.initialRebalanceDelayMs(), initialDelayCapMs);
            } else {
                initialDelay = false;
                rebalanceDeadlineMs = now + maxRebalanceTimeout();
            }
            maybeCompleteJoin(now);
        }

        private int maxRebalanceTimeout() {
            int max = 0;
            for (Member m : members.values()) {
                max = Math.max(max, m.rebalanceTimeoutMs);
            }
            return max;
        }

        private void maybeCompleteJoin(long now) {
            if (state != State.PREPARING_REBALANCE || initialDelay || !pending.isEmpty()) {
                return;
            }
            for (Member m : members.values()) {
                if (m.joining == null) {
                    return;
                }
            }
            completeJoin(now);
        }

        /** Ends the join phase: members that did not rejoin are evicted, the next generation starts. */
        private void completeJoin(long now) {
            initialDelay = false;
            for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
                Member m = it.next();
                if (m.joining == null) {
                    it.remove();
                    forgetStatic(m);
                }
            }
            generationId++;
            if (members.isEmpty()) {
                state = State.EMPTY;
                protocolType = null;
                protocolName = null;
                leaderId = null;
                save();
                return;
            }
            protocolName = selectProtocol();
            if (leaderId == null || !members.containsKey(leaderId)) {
                leaderId = members.keySet().iterator().next();
            }
            state = State.COMPLETING_REBALANCE;
            syncDeadlineMs = now + maxRebalanceTimeout();
            for (Member m : members.values()) {
                m.assignment = NONE;
            }
            if (!save()) {
                return;
            }
            for (Member m : members.values()) {
                m.lastHeartbeatMs = now;
                complete(m.joining, currentJoin(m));
                m.joining = null;
            }
        }

        private JoinResult currentJoin(Member m) {
            List<MemberMetadata> list = List.of();
            if (m.memberId.equals(leaderId)) {
                list = new ArrayList<>();
                for (Member x : members.values()) {
                    list.add(new MemberMetadata(x.memberId, x.instanceId, x.metadata(protocolName)));
                }
            }
            return new JoinResult(Errors.NONE, m.memberId, generationId, protocolType, protocolName, leaderId, list);
        }

        // ---- SyncGroup, Heartbeat, LeaveGroup ----

        CompletableFuture<SyncResult> sync(String memberId, String instanceId, int generation, String type,
                String name, Map<String, byte[]> assignments) {
            long now = clockMs.getAsLong();
            Member m = members.get(memberId);
            if (m == null) {
                return done(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            }
            if (fenced(instanceId, memberId)) {
                return done(SyncResult.error(Errors.FENCED_INSTANCE_ID));
            }
            if (generation != generationId) {
                return done(SyncResult.error(Errors.ILLEGAL_GENERATION));
            }
            if ((type != null && !type.equals(protocolType)) || (name != null && !name.equals(protocolName))) {
                return done(SyncResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
            switch (state) {
                case PREPARING_REBALANCE -> {
                    return done(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                }
                case COMPLETING_REBALANCE -> {
                    m.lastHeartbeatMs = now;
                    CompletableFuture<SyncResult> f = new CompletableFuture<>();
                    complete(m.syncing, SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                    m.syncing = f;
                    if (memberId.equals(leaderId)) {
                        for (Member x : members.values()) {
                            byte[] a = assignments.get(x.memberId);
                            x.assignment = a == null ? NONE : a;
                        }
                        state = State.STABLE;
                        if (!save()) {
                            return f;
                        }
                        for (Member x : members.values()) {
                            x.lastHeartbeatMs = now;
                            complete(x.syncing, new SyncResult(Errors.NONE, protocolType, protocolName,
                                    x.assignment));
                            x.syncing = null;
                        }
                    }
                    return f;
                }
                case STABLE -> {
                    m.lastHeartbeatMs = now;
                    return done(new SyncResult(Errors.NONE, protocolType, protocolName, m.assignment));
                }
                default -> {
                    return done(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
                }
            }
        }

        Errors heartbeat(String memberId, String instanceId, int generation) {
            Member m = members.get(memberId);
            if (fenced(instanceId, memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            if (m == null || state == State.EMPTY) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (generation != generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
            m.lastHeartbeatMs = clockMs.getAsLong();
            return state == State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
        }

        List<LeaveResult> leave(List<String[]> identities) {
            long now = clockMs.getAsLong();
            List<LeaveResult> out = new ArrayList<>();
            boolean removed = false;
            for (String[] id : identities) {
                String memberId = id[0] == null ? "" : id[0];
                String instanceId = id[1];
                if (instanceId != null) {
                    String holder = staticMembers.get(instanceId);
                    if (holder == null) {
                        out.add(new LeaveResult(memberId, instanceId, Errors.UNKNOWN_MEMBER_ID));
                        continue;
                    }
                    if (!memberId.isEmpty() && !memberId.equals(holder)) {
                        out.add(new LeaveResult(memberId, instanceId, Errors.FENCED_INSTANCE_ID));
                        continue;
                    }
                    memberId = holder;
                }
                if (pending.remove(memberId) != null) {
                    removed = true;
                    out.add(new LeaveResult(memberId, instanceId, Errors.NONE));
                    continue;
                }
                Member m = members.remove(memberId);
                if (m == null) {
                    out.add(new LeaveResult(memberId, instanceId, Errors.UNKNOWN_MEMBER_ID));
                    continue;
                }
                forgetStatic(m);
                complete(m.joining, JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
                complete(m.syncing, SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
                removed = true;
                out.add(new LeaveResult(memberId, instanceId, Errors.NONE));
            }
            if (removed) {
                membersRemoved(now);
            }
            return out;
        }

        Errors validateCommit(String memberId, String instanceId, int generation, boolean transactional) {
            boolean anonymous = (memberId == null || memberId.isEmpty()) && instanceId == null;
            if (generation < 0 && state == State.EMPTY) {
                return Errors.NONE; // a group used only to store offsets
            }
            if (generation < 0 && anonymous) {
                return transactional ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
            }
            if (fenced(instanceId, memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            Member m = members.get(memberId);
            if (m == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (generation != generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
            if (state == State.COMPLETING_REBALANCE && !transactional) {
                return Errors.REBALANCE_IN_PROGRESS;
            }
            m.lastHeartbeatMs = clockMs.getAsLong();
            return Errors.NONE;
        }

        GroupView view() {
            boolean stable = state == State.STABLE;
            List<MemberView> list = new ArrayList<>();
            for (Member m : members.values()) {
                list.add(new MemberView(m.memberId, m.instanceId, m.clientId, m.clientHost,
                        stable ? m.metadata(protocolName) : NONE, stable ? m.assignment : NONE, m.joinedAt));
            }
            return new GroupView(key.groupId(), state, protocolType == null ? "" : protocolType,
                    stable ? protocolName : "", list);
        }

        Errors beginDelete() {
            if (!members.isEmpty() || !pending.isEmpty() || state != State.EMPTY) {
                return Errors.NON_EMPTY_GROUP;
            }
            state = State.DEAD;
            return Errors.NONE;
        }

        // ---- timers ----

        void expire(long now) {
            boolean removed = false;
            for (Iterator<Map.Entry<String, Long>> it = pending.entrySet().iterator(); it.hasNext(); ) {
                if (it.next().getValue() <= now) {
                    it.remove();
                    removed = true;
                }
            }
            for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
                Member m = it.next();
                // a member waiting in JoinGroup or SyncGroup cannot heartbeat: the wait keeps it alive
                if (m.joining == null && m.syncing == null && now - m.lastHeartbeatMs > m.sessionTimeoutMs) {
                    it.remove();
                    forgetStatic(m);
                    removed = true;
                }
            }
            if (state == State.COMPLETING_REBALANCE && now >= syncDeadlineMs) {
                for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
                    Member m = it.next();
                    if (m.syncing == null) {
                        it.remove();
                        forgetStatic(m);
                        removed = true;
                    }
                }
            }
            if (removed) {
                membersRemoved(now);
            }
            if (state == State.PREPARING_REBALANCE && now >= rebalanceDeadlineMs) {
                if (initialDelay) {
                    initialDelay = false;
                    rebalanceDeadlineMs = initialDelayCapMs;
                    maybeCompleteJoin(now);
                } else {
                    completeJoin(now);
                }
            }
        }

        private void membersRemoved(long now) {
            if (leaderId != null && !members.containsKey(leaderId)) {
                leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
            }
            switch (state) {
                case STABLE, COMPLETING_REBALANCE -> prepareRebalance(now);
                case PREPARING_REBALANCE -> maybeCompleteJoin(now);
                default -> {
                }
            }
        }

        private void forgetStatic(Member m) {
            if (m.instanceId != null) {
                staticMembers.remove(m.instanceId, m.memberId);
            }
        }

        /** A request naming a group.instance.id now held by another member id comes from a replaced process. */
        private boolean fenced(String instanceId, String memberId) {
            if (instanceId == null) {
                return false;
            }
            String holder = staticMembers.get(instanceId);
            return holder != null && !holder.equals(memberId);
        }

        private <T> CompletableFuture<T> done(T value) {
            return CompletableFuture.completedFuture(value);
        }
    }
}
