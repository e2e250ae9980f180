package io.queen.kafka.group;

import static io.queen.kafka.group.ClassicMember.NONE;

import io.queen.kafka.group.ClassicGroups.GroupView;
import io.queen.kafka.group.ClassicGroups.JoinRequest;
import io.queen.kafka.group.ClassicGroups.JoinResult;
import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ClassicGroups.LeaveResult;
import io.queen.kafka.group.ClassicGroups.LeavingMember;
import io.queen.kafka.group.ClassicGroups.MemberMetadata;
import io.queen.kafka.group.ClassicGroups.MemberView;
import io.queen.kafka.group.ClassicGroups.Protocol;
import io.queen.kafka.group.ClassicGroups.SyncResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * One classic group as this broker coordinates it: its members, generation, protocol, leader and assignment, and
 * how each request moves it between the {@link ClassicGroupState}s (every move through {@link #transitionTo}).
 * Guarded by its monitor, which its coordinator ({@link ClassicGroups}) holds around every call; waiting answers are
 * queued and handed to the coordinator by {@link #drain}, to complete once the monitor is released. A copy dropped
 * ({@link #abandon}: a save refused or failed, or this broker no longer coordinates the group) reports it by
 * {@link #abandoned}; the coordinator, which alone holds the map of groups, then takes it out.
 */
final class ClassicGroup {
    private final Key key;
    private final ClassicGroups.Settings settings;
    private final LongSupplier clockMs;
    private final GroupLog log;
    private ClassicGroupState state = ClassicGroupState.EMPTY;
    private int generationId;
    /** Where completed generations are counted (the owning {@link ClassicGroups}' counter; its own when alone). */
    private LongAdder rebalances = new LongAdder();
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final LinkedHashMap<String, ClassicMember> members = new LinkedHashMap<>();
    /** Members told MEMBER_ID_REQUIRED, until their second JoinGroup or this deadline (ms). */
    private final HashMap<String, Long> pending = new HashMap<>();
    /** group.instance.id → the member id currently holding it. */
    private final HashMap<String, String> staticMembers = new HashMap<>();
    private long rebalanceDeadlineMs;
    private boolean initialDelay;
    private long initialDelayCapMs;
    private long syncDeadlineMs;
    /** Whether the saved state was read (a group is loaded before its first request is applied). */
    private boolean loaded;
    /** Whether this copy was dropped ({@link #abandon}): its coordinator forgets it. */
    private boolean abandoned;
    /** The version of the saved state this copy continues (0: nothing saved yet). */
    private long version;
    private final List<Runnable> outbox = new ArrayList<>();

    ClassicGroup(Key key, ClassicGroups.Settings settings, LongSupplier clockMs, GroupLog log) {
        this.key = key;
        this.settings = settings;
        this.clockMs = clockMs;
        this.log = log;
    }

    /** Counts this group's completed generations in {@code counter}; returns this group. */
    ClassicGroup countingRebalancesIn(LongAdder counter) {
        this.rebalances = counter;
        return this;
    }

    int memberCount() {
        return members.size();
    }

    Key key() {
        return key;
    }

    ClassicGroupState state() {
        return state;
    }

    boolean loaded() {
        return loaded;
    }

    boolean abandoned() {
        return abandoned;
    }

    /** Empty, with no member id pending either: nothing of this group is left but its saved state. */
    boolean vacant() {
        return state == ClassicGroupState.EMPTY && members.isEmpty() && pending.isEmpty();
    }

    /**
     * Moves the group to {@code next}; a move from a state {@code next} does not follow is a bug in this class, so
     * it throws rather than leave the group in a state its requests are not answered for.
     */
    void transitionTo(ClassicGroupState next) {
        if (!next.validPreviousStates().contains(state)) {
            throw new IllegalStateException("group " + key.groupId() + " cannot move from " + state.wire + " to "
                    + next.wire);
        }
        state = next;
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
            ClassicMember m = new ClassicMember(sm, now);
            members.put(m.memberId, m);
            if (m.instanceId != null) {
                staticMembers.put(m.instanceId, m.memberId);
            }
        }
        // taking the saved state is not a transition: this copy starts where the saved one stands
        if (members.isEmpty()) {
            state = ClassicGroupState.EMPTY;
        } else if (ClassicGroupState.STABLE.wire.equals(s.state())) {
            state = ClassicGroupState.STABLE;
        } else {
            state = ClassicGroupState.COMPLETING_REBALANCE;
            syncDeadlineMs = now + maxRebalanceTimeout();
        }
    }

    /**
     * Saves the state as it is now; false when refused or failed, in which case this copy is dropped
     * ({@link #abandon}) and the caller must not hand anything out.
     */
    private boolean save() {
        List<GroupLog.SavedMember> list = new ArrayList<>();
        for (ClassicMember m : members.values()) {
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
        releaseWaiters(Errors.NOT_COORDINATOR);
        transitionTo(ClassicGroupState.DEAD);
        abandoned = true;
    }

    /** Answers every JoinGroup and SyncGroup waiting with {@code error}. */
    void releaseWaiters(Errors error) {
        for (ClassicMember m : members.values()) {
            complete(m.joining, JoinResult.error(error, m.memberId));
            complete(m.syncing, SyncResult.error(error));
            m.joining = null;
            m.syncing = null;
        }
    }

    List<Runnable> drain() {
        if (outbox.isEmpty()) {
            return List.of();
        }
        List<Runnable> out = new ArrayList<>(outbox);
        outbox.clear();
        return out;
    }

    private <T> void complete(CompletableFuture<T> f, T value) {
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
        ClassicMember m = members.get(memberId);
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
    private CompletableFuture<JoinResult> rejoin(ClassicMember m, JoinRequest r, long now) {
        m.update(r, now);
        // a second JoinGroup replaces the first one's wait (the client gave up on it)
        complete(m.joining, JoinResult.error(Errors.REBALANCE_IN_PROGRESS, m.memberId));
        return awaitJoin(m, now);
    }

    /** {@code m} waits for the current join phase to complete, started now unless one is under way. */
    private CompletableFuture<JoinResult> awaitJoin(ClassicMember m, long now) {
        CompletableFuture<JoinResult> f = new CompletableFuture<>();
        m.joining = f;
        if (state == ClassicGroupState.PREPARING_REBALANCE) {
            maybeCompleteJoin(now);
        } else {
            prepareRebalance(now);
        }
        return f;
    }

    private CompletableFuture<JoinResult> addMember(String memberId, JoinRequest r, long now) {
        ClassicMember m = new ClassicMember(memberId, r, now);
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
        if (state == ClassicGroupState.PREPARING_REBALANCE && initialDelay) {
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
        ClassicMember old = members.remove(oldId);
        String newId = r.instanceId() + "-" + UUID.randomUUID();
        ClassicMember m = new ClassicMember(newId, r, now);
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
        for (ClassicMember m : members.values()) {
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
        for (ClassicMember m : members.values()) {
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
        if (state == ClassicGroupState.COMPLETING_REBALANCE) {
            // the assignment being handed out is void: members waiting in SyncGroup rejoin
            for (ClassicMember m : members.values()) {
                m.assignment = NONE;
                complete(m.syncing, SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                m.syncing = null;
            }
        }
        boolean fromEmpty = state == ClassicGroupState.EMPTY;
        transitionTo(ClassicGroupState.PREPARING_REBALANCE);
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
        for (ClassicMember m : members.values()) {
            max = Math.max(max, m.rebalanceTimeoutMs);
        }
        return max;
    }

    private void maybeCompleteJoin(long now) {
        if (state != ClassicGroupState.PREPARING_REBALANCE || initialDelay || !pending.isEmpty()) {
            return;
        }
        for (ClassicMember m : members.values()) {
            if (m.joining == null) {
                return;
            }
        }
        completeJoin(now);
    }

    /** Ends the join phase: members that did not rejoin are evicted, the next generation starts. */
    private void completeJoin(long now) {
        initialDelay = false;
        for (Iterator<ClassicMember> it = members.values().iterator(); it.hasNext(); ) {
            ClassicMember m = it.next();
            if (m.joining == null) {
                it.remove();
                forgetStatic(m);
            }
        }
        generationId++;
        rebalances.increment();
        if (members.isEmpty()) {
            transitionTo(ClassicGroupState.EMPTY);
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
        transitionTo(ClassicGroupState.COMPLETING_REBALANCE);
        syncDeadlineMs = now + maxRebalanceTimeout();
        for (ClassicMember m : members.values()) {
            m.assignment = NONE;
        }
        if (!save()) {
            return;
        }
        for (ClassicMember m : members.values()) {
            m.lastHeartbeatMs = now;
            complete(m.joining, currentJoin(m));
            m.joining = null;
        }
    }

    private JoinResult currentJoin(ClassicMember m) {
        List<MemberMetadata> list = List.of();
        if (m.memberId.equals(leaderId)) {
            list = new ArrayList<>();
            for (ClassicMember x : members.values()) {
                list.add(new MemberMetadata(x.memberId, x.instanceId, x.metadata(protocolName)));
            }
        }
        return new JoinResult(Errors.NONE, m.memberId, generationId, protocolType, protocolName, leaderId, list);
    }

    // ---- SyncGroup, Heartbeat, LeaveGroup ----

    CompletableFuture<SyncResult> sync(String memberId, String instanceId, int generation, String type,
            String name, Map<String, byte[]> assignments) {
        long now = clockMs.getAsLong();
        ClassicMember m = members.get(memberId);
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
                    if (oversized(assignments)) {
                        // as Apache Kafka when it cannot store the group's assignment: every waiting SyncGroup
                        // learns why, and the group rebalances
                        for (ClassicMember x : members.values()) {
                            complete(x.syncing, SyncResult.error(ClassicGroups.TOO_LARGE));
                            x.syncing = null;
                        }
                        prepareRebalance(now);
                        return f;
                    }
                    for (ClassicMember x : members.values()) {
                        byte[] a = assignments.get(x.memberId);
                        x.assignment = a == null ? NONE : a;
                    }
                    transitionTo(ClassicGroupState.STABLE);
                    if (!save()) {
                        return f;
                    }
                    for (ClassicMember x : members.values()) {
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

    /** Whether the leader's assignment of a member of the group is more than a member may keep. */
    private boolean oversized(Map<String, byte[]> assignments) {
        for (ClassicMember x : members.values()) {
            byte[] a = assignments.get(x.memberId);
            if (a != null && a.length > settings.maxMemberBytes()) {
                return true;
            }
        }
        return false;
    }

    Errors heartbeat(String memberId, String instanceId, int generation) {
        ClassicMember m = members.get(memberId);
        if (fenced(instanceId, memberId)) {
            return Errors.FENCED_INSTANCE_ID;
        }
        if (m == null || state == ClassicGroupState.EMPTY) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generation != generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        m.lastHeartbeatMs = clockMs.getAsLong();
        return state == ClassicGroupState.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    List<LeaveResult> leave(List<LeavingMember> leaving) {
        long now = clockMs.getAsLong();
        List<LeaveResult> out = new ArrayList<>();
        boolean removed = false;
        for (LeavingMember id : leaving) {
            String memberId = id.memberId() == null ? "" : id.memberId();
            String instanceId = id.instanceId();
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
            ClassicMember m = members.remove(memberId);
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
        if (generation < 0 && state == ClassicGroupState.EMPTY) {
            return Errors.NONE; // a group used only to store offsets
        }
        if (generation < 0 && anonymous) {
            return transactional ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
        }
        if (fenced(instanceId, memberId)) {
            return Errors.FENCED_INSTANCE_ID;
        }
        ClassicMember m = members.get(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generation != generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        if (state == ClassicGroupState.COMPLETING_REBALANCE && !transactional) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        m.lastHeartbeatMs = clockMs.getAsLong();
        return Errors.NONE;
    }

    GroupView view() {
        boolean stable = state == ClassicGroupState.STABLE;
        List<MemberView> list = new ArrayList<>();
        for (ClassicMember m : members.values()) {
            list.add(new MemberView(m.memberId, m.instanceId, m.clientId, m.clientHost,
                    stable ? m.metadata(protocolName) : NONE, stable ? m.assignment : NONE, m.joinedAt));
        }
        return new GroupView(key.groupId(), state, protocolType == null ? "" : protocolType,
                stable ? protocolName : "", list);
    }

    Errors beginDelete() {
        if (!vacant()) {
            return Errors.NON_EMPTY_GROUP;
        }
        transitionTo(ClassicGroupState.DEAD);
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
        for (Iterator<ClassicMember> it = members.values().iterator(); it.hasNext(); ) {
            ClassicMember m = it.next();
            // a member waiting in JoinGroup or SyncGroup cannot heartbeat: the wait keeps it alive
            if (m.joining == null && m.syncing == null && now - m.lastHeartbeatMs > m.sessionTimeoutMs) {
                it.remove();
                forgetStatic(m);
                removed = true;
            }
        }
        if (state == ClassicGroupState.COMPLETING_REBALANCE && now >= syncDeadlineMs) {
            for (Iterator<ClassicMember> it = members.values().iterator(); it.hasNext(); ) {
                ClassicMember m = it.next();
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
        if (state == ClassicGroupState.PREPARING_REBALANCE && now >= rebalanceDeadlineMs) {
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

    private void forgetStatic(ClassicMember m) {
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
