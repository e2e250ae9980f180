package io.queen.kafka.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import io.queen.api.Json;
import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ConsumerMember.Reconciliation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * One consumer-protocol group (KIP-848) as this broker coordinates it, following Apache Kafka's
 * {@code GroupMetadataManager.consumerGroupHeartbeat}: a member's heartbeat updates its subscription; a change of
 * membership, of a subscription or of the subscribed topics' partitions bumps the group epoch; the assignor then
 * computes the target assignment at that epoch; and each member is reconciled towards its target by its own
 * heartbeats (Kafka's {@code CurrentAssignmentBuilder}): it is first told to revoke what the target takes from it and
 * keeps its epoch until a heartbeat's owned partitions confirm the revocation; a partition it gains is handed to it
 * only once no other member owns it. So no partition is ever owned by two members.
 *
 * <p>Guarded by its monitor, which {@link ConsumerGroups} holds around every call. Changes that matter to another
 * coordinator (members, epochs, partitions, the target) are saved through a {@link ConsumerGroupLog} before the
 * answer leaves; a save refused or failed drops this copy ({@link #abandoned}).
 */
final class ConsumerGroup {
    /** The member epoch of a member leaving for good (-1) or a static member leaving for now (-2). */
    static final int LEAVE = -1;
    static final int STATIC_LEAVE = -2;

    /** One topic as the catalog has it. */
    record TopicInfo(Uuid id, String name, int partitions) {
    }

    /** What a ConsumerGroupHeartbeat asks; a null field did not change since the member's previous heartbeat. */
    record Heartbeat(String memberId, int memberEpoch, String instanceId, String rackId, int rebalanceTimeoutMs,
            List<String> subscribedNames, String subscribedRegex, String serverAssignor,
            Map<Uuid, Set<Integer>> owned, String clientId, String clientHost) {
        /** A full request (joining, or resent after an error): it carries every field, so the answer carries all. */
        boolean full() {
            return memberEpoch == 0 || (rebalanceTimeoutMs != -1
                    && (subscribedNames != null || subscribedRegex != null) && owned != null);
        }
    }

    /** A heartbeat's answer; {@code assignment} null when the member's partitions did not change. */
    record HeartbeatResult(Errors error, String message, String memberId, int memberEpoch,
            Map<Uuid, Set<Integer>> assignment) {
        static HeartbeatResult error(Errors e, String message) {
            return new HeartbeatResult(e, message, null, 0, null);
        }
    }

    private final Key key;
    private final ConsumerGroups.Settings settings;
    private final ConsumerGroupLog log;
    private ConsumerGroupState state = ConsumerGroupState.EMPTY;
    private int groupEpoch;
    private int assignmentEpoch;
    private final LinkedHashMap<String, ConsumerMember> members = new LinkedHashMap<>();
    /** group.instance.id → the member id holding it. */
    private final HashMap<String, String> staticMembers = new HashMap<>();
    /** The target assignment at {@link #assignmentEpoch}: member id → topic id → partitions. */
    private Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();
    /** The subscribed topics as of the last heartbeat (null after a load: the next heartbeat sets it). */
    private Map<String, TopicInfo> subscribed;
    private boolean loaded;
    private boolean abandoned;
    private boolean dirty;
    private long version;

    /** Where group epoch bumps are counted (the owning {@link ConsumerGroups}' counter; its own when alone). */
    private LongAdder rebalances = new LongAdder();

    /** Counts this group's epoch bumps (each a new target assignment) in {@code counter}; returns this group. */
    ConsumerGroup countingRebalancesIn(LongAdder counter) {
        this.rebalances = counter;
        return this;
    }

    ConsumerGroup(Key key, ConsumerGroups.Settings settings, ConsumerGroupLog log) {
        this.key = key;
        this.settings = settings;
        this.log = log;
    }

    Key key() {
        return key;
    }

    ConsumerGroupState state() {
        return state;
    }

    boolean loaded() {
        return loaded;
    }

    boolean abandoned() {
        return abandoned;
    }

    int groupEpoch() {
        return groupEpoch;
    }

    int assignmentEpoch() {
        return assignmentEpoch;
    }

    Map<String, ConsumerMember> members() {
        return members;
    }

    Map<Uuid, Set<Integer>> targetOf(String memberId) {
        return target.getOrDefault(memberId, Map.of());
    }

    /** The assignor the group uses now: the one most members ask for, else the default (Kafka's rule). */
    String assignorName() {
        Map<String, Integer> votes = new TreeMap<>();
        for (ConsumerMember m : members.values()) {
            if (m.serverAssignor != null) {
                votes.merge(m.serverAssignor, 1, Integer::sum);
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(settings.defaultAssignor());
    }

    /**
     * Moves the group to {@code next}; a move {@code next} does not allow is a bug in this class, so it throws
     * rather than leave the group in a state its requests are not answered for.
     */
    private void transitionTo(ConsumerGroupState next) {
        if (!next.validPreviousStates().contains(state)) {
            throw new IllegalStateException("group " + key.groupId() + " cannot move from " + state.wire + " to "
                    + next.wire);
        }
        state = next;
    }

    /** The state the members make it (Kafka's {@code maybeUpdateGroupState}). */
    private void updateState() {
        ConsumerGroupState next = ConsumerGroupState.STABLE;
        if (members.isEmpty()) {
            next = ConsumerGroupState.EMPTY;
        } else if (groupEpoch > assignmentEpoch) {
            next = ConsumerGroupState.ASSIGNING;
        } else {
            for (ConsumerMember m : members.values()) {
                if (m.reconciliation != Reconciliation.STABLE || m.memberEpoch != assignmentEpoch) {
                    next = ConsumerGroupState.RECONCILING;
                    break;
                }
            }
        }
        if (next != state) {
            transitionTo(next);
        }
    }

    // ---- ConsumerGroupHeartbeat ----

    HeartbeatResult heartbeat(Heartbeat r, Map<String, TopicInfo> topics, long now) {
        if (r.memberEpoch() == LEAVE || r.memberEpoch() == STATIC_LEAVE) {
            return leave(r);
        }
        String id = r.memberId().isEmpty() ? Uuid.randomUuid().toString() : r.memberId();
        boolean bump = false;
        boolean replaced = false;
        ConsumerMember m;
        if (r.instanceId() == null) {
            m = members.get(id);
            if (m == null) {
                if (r.memberEpoch() != 0) {
                    return HeartbeatResult.error(Errors.UNKNOWN_MEMBER_ID, "Member " + id + " is not in the group.");
                }
                if (members.size() >= settings.maxSize()) {
                    return full();
                }
                m = add(id, now);
                bump = true;
            }
        } else {
            ConsumerMember holder = members.get(staticMembers.getOrDefault(r.instanceId(), ""));
            if (r.memberEpoch() != 0) {
                if (holder == null) {
                    return HeartbeatResult.error(Errors.UNKNOWN_MEMBER_ID,
                            "Instance id " + r.instanceId() + " is unknown.");
                }
                if (!holder.memberId.equals(id)) {
                    return HeartbeatResult.error(Errors.FENCED_INSTANCE_ID, "Static member " + id
                            + " with instance id " + r.instanceId() + " was fenced by member " + holder.memberId + ".");
                }
                m = holder;
            } else if (holder == null) {
                m = members.get(id);
                if (m == null) {
                    if (members.size() >= settings.maxSize()) {
                        return full();
                    }
                    m = add(id, now);
                    bump = true;
                }
            } else if (holder.memberId.equals(id)) {
                m = holder;
            } else {
                if (holder.memberEpoch != STATIC_LEAVE) {
                    return HeartbeatResult.error(Errors.UNRELEASED_INSTANCE_ID, "Static member " + id
                            + " with instance id " + r.instanceId() + " cannot join the group because the instance id"
                            + " is owned by " + holder.memberId + " member.");
                }
                // the instance's new process takes the place of the old one, with its partitions
                m = holder.replacedBy(id);
                replaced = true;
                members.remove(holder.memberId);
                members.put(id, m);
                Map<Uuid, Set<Integer>> t = target.remove(holder.memberId);
                if (t != null) {
                    target.put(id, t);
                }
                dirty = true;
            }
        }
        if (r.memberEpoch() == 0) {
            if (!replaced) {
                // a member (re)joining holds nothing: what it owned is free for its next owner
                m.assigned = Map.of();
            }
            m.revoking = Map.of();
            m.previousEpoch = 0;
            m.memberEpoch = 0;
            m.reconciliation = Reconciliation.STABLE;
            dirty = true;
        } else {
            Errors e = checkEpoch(m, r.memberEpoch(), r.owned());
            if (e != Errors.NONE) {
                return HeartbeatResult.error(e, "The consumer group member has member epoch " + r.memberEpoch()
                        + ", the group coordinator " + m.memberEpoch + ". The member must abandon all its"
                        + " partitions and rejoin.");
            }
        }
        bump |= update(m, r);
        Map<String, TopicInfo> nowSubscribed = subscribedTopics(topics);
        if (!nowSubscribed.equals(subscribed)) {
            bump |= subscribed != null;
            subscribed = nowSubscribed;
        }
        if (bump) {
            groupEpoch++;
            rebalances.increment();
            dirty = true;
        }
        if (groupEpoch > assignmentEpoch) {
            assign(topics);
        }
        Map<Uuid, Set<Integer>> before = m.assigned;
        reconcile(m, r.owned(), now);
        m.lastHeartbeatMs = now;
        updateState();
        if (!saveIfChanged()) {
            return HeartbeatResult.error(Errors.NOT_COORDINATOR, null);
        }
        boolean send = r.full() || !before.equals(m.assigned);
        return new HeartbeatResult(Errors.NONE, null, m.memberId, m.memberEpoch, send ? m.assigned : null);
    }

    private HeartbeatResult full() {
        return HeartbeatResult.error(Errors.GROUP_MAX_SIZE_REACHED,
                "The consumer group has reached its maximum capacity of " + settings.maxSize() + " members.");
    }

    private ConsumerMember add(String id, long now) {
        ConsumerMember m = new ConsumerMember(id);
        m.lastHeartbeatMs = now;
        members.put(id, m);
        dirty = true;
        return m;
    }

    /** Kafka's member epoch check: ahead is fenced; behind only when it is the previous epoch, owning no more. */
    private static Errors checkEpoch(ConsumerMember m, int received, Map<Uuid, Set<Integer>> owned) {
        if (received > m.memberEpoch) {
            return Errors.FENCED_MEMBER_EPOCH;
        }
        if (received < m.memberEpoch && (received != m.previousEpoch || owned == null || !within(owned, m.assigned))) {
            return Errors.FENCED_MEMBER_EPOCH;
        }
        return Errors.NONE;
    }

    /** Takes what the heartbeat says; true when the member's subscription or assignor changed. */
    private boolean update(ConsumerMember m, Heartbeat r) {
        boolean changed = false;
        if (r.instanceId() != null) {
            m.instanceId = r.instanceId();
            staticMembers.put(r.instanceId(), m.memberId);
        }
        if (r.rackId() != null) {
            m.rackId = r.rackId();
        }
        if (r.rebalanceTimeoutMs() != -1) {
            m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        }
        // a request header may carry no client id; ConsumerGroupDescribe answers one that is never null
        m.clientId = Objects.requireNonNullElse(r.clientId(), "");
        m.clientHost = Objects.requireNonNullElse(r.clientHost(), "");
        if (r.subscribedNames() != null && !r.subscribedNames().equals(m.subscribedNames)) {
            m.subscribedNames = List.copyOf(r.subscribedNames());
            changed = true;
        }
        if (r.subscribedRegex() != null) {
            String regex = r.subscribedRegex().isEmpty() ? null : r.subscribedRegex();
            if (!Objects.equals(regex, m.subscribedRegex)) {
                m.subscribedRegex = regex;
                changed = true;
            }
        }
        if (r.serverAssignor() != null && !r.serverAssignor().equals(m.serverAssignor)) {
            m.serverAssignor = r.serverAssignor();
            changed = true;
        }
        if (changed) {
            dirty = true;
        }
        return changed;
    }

    /** The topics one member subscribes to that exist: its names, and the names its regex matches entirely. */
    private static Map<String, TopicInfo> subscriptionOf(ConsumerMember m, Map<String, TopicInfo> topics) {
        Map<String, TopicInfo> out = new TreeMap<>();
        for (String name : m.subscribedNames) {
            TopicInfo t = topics.get(name);
            if (t != null) {
                out.put(name, t);
            }
        }
        if (m.subscribedRegex != null) {
            Pattern p = Pattern.compile(m.subscribedRegex);
            topics.forEach((name, t) -> {
                if (p.matcher(name).matches()) {
                    out.put(name, t);
                }
            });
        }
        return out;
    }

    private Map<String, TopicInfo> subscribedTopics(Map<String, TopicInfo> topics) {
        Map<String, TopicInfo> out = new TreeMap<>();
        for (ConsumerMember m : members.values()) {
            out.putAll(subscriptionOf(m, topics));
        }
        return out;
    }

    /** Computes the target assignment at the group epoch. */
    private void assign(Map<String, TopicInfo> topics) {
        List<PartitionAssignor.Subscriber> subs = new ArrayList<>();
        for (ConsumerMember m : members.values()) {
            Set<Uuid> ids = new TreeSet<>();
            subscriptionOf(m, topics).values().forEach(t -> ids.add(t.id()));
            subs.add(new PartitionAssignor.Subscriber(m.memberId, ids));
        }
        subs.sort(java.util.Comparator.comparing(PartitionAssignor.Subscriber::memberId));
        Map<Uuid, Integer> counts = new HashMap<>();
        subscribed.values().forEach(t -> counts.put(t.id(), t.partitions()));
        target = settings.assignors().get(assignorName()).assign(subs, counts, target);
        assignmentEpoch = groupEpoch;
        dirty = true;
    }

    /** Moves {@code m} towards its target as far as the partitions' other owners allow (Kafka's rules). */
    private void reconcile(ConsumerMember m, Map<Uuid, Set<Integer>> owned, long now) {
        switch (m.reconciliation) {
            case STABLE -> {
                if (m.memberEpoch != assignmentEpoch) {
                    next(m, m.memberEpoch, owned, now);
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (!ownsAny(owned, m.revoking)) {
                    next(m, m.memberEpoch + 1, owned, now);
                }
            }
            case UNRELEASED_PARTITIONS -> next(m, m.memberEpoch, owned, now);
            default -> throw new IllegalStateException(m.reconciliation.name());
        }
    }

    private void next(ConsumerMember m, int revokingEpoch, Map<Uuid, Set<Integer>> owned, long now) {
        Map<Uuid, Set<Integer>> goal = targetOf(m.memberId);
        Map<Uuid, Set<Integer>> keep = new TreeMap<>();
        Map<Uuid, Set<Integer>> revoke = new TreeMap<>();
        Map<Uuid, Set<Integer>> gain = new TreeMap<>();
        boolean unreleased = false;
        Set<Uuid> topicIds = new TreeSet<>(goal.keySet());
        topicIds.addAll(m.assigned.keySet());
        for (Uuid t : topicIds) {
            Set<Integer> want = goal.getOrDefault(t, Set.of());
            for (int p : m.assigned.getOrDefault(t, Set.of())) {
                (want.contains(p) ? keep : revoke).computeIfAbsent(t, k -> new TreeSet<>()).add(p);
            }
            for (int p : want) {
                if (!m.assigned.getOrDefault(t, Set.of()).contains(p)) {
                    if (ownedByOther(m, t, p)) {
                        unreleased = true;
                    } else {
                        gain.computeIfAbsent(t, k -> new TreeSet<>()).add(p);
                    }
                }
            }
        }
        Map<Uuid, Set<Integer>> before = m.assigned;
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            m.reconciliation = Reconciliation.UNREVOKED_PARTITIONS;
            setEpoch(m, revokingEpoch);
            m.assigned = keep;
            m.revoking = revoke;
            m.revokeDeadlineMs = now + m.rebalanceTimeoutMs;
        } else {
            gain.forEach((t, ps) -> keep.computeIfAbsent(t, k -> new TreeSet<>()).addAll(ps));
            m.reconciliation = unreleased ? Reconciliation.UNRELEASED_PARTITIONS : Reconciliation.STABLE;
            setEpoch(m, assignmentEpoch);
            m.assigned = keep;
            m.revoking = Map.of();
        }
        if (!before.equals(m.assigned) || m.memberEpoch != m.previousEpoch) {
            dirty = true;
        }
    }

    private static void setEpoch(ConsumerMember m, int epoch) {
        m.previousEpoch = m.memberEpoch;
        m.memberEpoch = epoch;
    }

    /** Whether a member other than {@code m} owns the partition (assigned, or not yet confirmed revoked). */
    private boolean ownedByOther(ConsumerMember m, Uuid topic, int partition) {
        for (ConsumerMember o : members.values()) {
            if (o != m && (o.assigned.getOrDefault(topic, Set.of()).contains(partition)
                    || o.revoking.getOrDefault(topic, Set.of()).contains(partition))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the owned partitions (null: not reported, so still all of them) include any of {@code these}. */
    private static boolean ownsAny(Map<Uuid, Set<Integer>> owned, Map<Uuid, Set<Integer>> these) {
        if (owned == null) {
            return true;
        }
        for (Map.Entry<Uuid, Set<Integer>> t : owned.entrySet()) {
            Set<Integer> s = these.getOrDefault(t.getKey(), Set.of());
            for (int p : t.getValue()) {
                if (s.contains(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether every partition of {@code owned} is in {@code assigned}. */
    private static boolean within(Map<Uuid, Set<Integer>> owned, Map<Uuid, Set<Integer>> assigned) {
        for (Map.Entry<Uuid, Set<Integer>> t : owned.entrySet()) {
            if (!assigned.getOrDefault(t.getKey(), Set.of()).containsAll(t.getValue())) {
                return false;
            }
        }
        return true;
    }

    // ---- leaving, timers ----

    private HeartbeatResult leave(Heartbeat r) {
        ConsumerMember m;
        if (r.instanceId() == null) {
            m = members.get(r.memberId());
            if (m == null) {
                return HeartbeatResult.error(Errors.UNKNOWN_MEMBER_ID, "Member " + r.memberId()
                        + " is not in the group.");
            }
        } else {
            m = members.get(staticMembers.getOrDefault(r.instanceId(), ""));
            if (m == null) {
                return HeartbeatResult.error(Errors.UNKNOWN_MEMBER_ID, "Instance id " + r.instanceId()
                        + " is unknown.");
            }
            if (!m.memberId.equals(r.memberId())) {
                return HeartbeatResult.error(Errors.FENCED_INSTANCE_ID, "Static member " + r.memberId()
                        + " with instance id " + r.instanceId() + " was fenced by member " + m.memberId + ".");
            }
        }
        if (r.memberEpoch() == STATIC_LEAVE && m.instanceId != null) {
            // the instance keeps its partitions (nobody else gets them) until it comes back or its session ends
            m.memberEpoch = STATIC_LEAVE;
            m.revoking = Map.of();
            dirty = true;
        } else {
            remove(m);
        }
        updateState();
        if (!saveIfChanged()) {
            return HeartbeatResult.error(Errors.NOT_COORDINATOR, null);
        }
        return new HeartbeatResult(Errors.NONE, null, m.memberId, r.memberEpoch(), null);
    }

    /** Takes a member out: its partitions are free, and the next heartbeat assigns them anew. */
    private void remove(ConsumerMember m) {
        members.remove(m.memberId);
        if (m.instanceId != null) {
            staticMembers.remove(m.instanceId, m.memberId);
        }
        target.remove(m.memberId);
        groupEpoch++;
        rebalances.increment();
        dirty = true;
    }

    /**
     * Evicts members whose session ended without a heartbeat, and members that did not confirm a revocation within
     * their rebalance timeout (both fenced, as Kafka does). False when the save failed (the copy is dropped).
     */
    boolean expire(long now) {
        boolean removed = false;
        for (Iterator<ConsumerMember> it = new ArrayList<>(members.values()).iterator(); it.hasNext(); ) {
            ConsumerMember m = it.next();
            boolean sessionOver = now - m.lastHeartbeatMs > settings.sessionTimeoutMs();
            boolean revocationOver = m.reconciliation == Reconciliation.UNREVOKED_PARTITIONS
                    && m.memberEpoch != STATIC_LEAVE && now > m.revokeDeadlineMs;
            if (sessionOver || revocationOver) {
                remove(m);
                removed = true;
            }
        }
        if (removed) {
            updateState();
        }
        return saveIfChanged();
    }

    // ---- offsets ----

    /**
     * Whether an OffsetCommit or OffsetFetch with this member id and epoch may proceed (Kafka's
     * {@code validateOffsetCommit} / {@code validateOffsetFetch}): one without member (epoch below 0) only while
     * the group has no member (commit) or always (fetch); a member's must name its current epoch, or for a commit
     * its previous one: a commit sent just before a heartbeat advanced the epoch (the member keeping its partitions)
     * is not refused for that, as Apache Kafka 4.x accepts a commit from an epoch at or after the partitions'
     * assignment.
     */
    Errors validateOffsets(String memberId, int memberEpoch, boolean commit) {
        if (memberEpoch < 0 && (!commit || members.isEmpty())
                && (commit || memberId == null || memberId.isEmpty())) {
            return Errors.NONE;
        }
        ConsumerMember m = memberId == null ? null : members.get(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        boolean current = memberEpoch == m.memberEpoch || (commit && memberEpoch == m.previousEpoch
                && memberEpoch >= 0);
        return current ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    /** Drops this copy: its members look for the coordinator again, which continues from the saved state. */
    void abandon() {
        transitionTo(ConsumerGroupState.DEAD);
        abandoned = true;
    }

    /** Marks the group being deleted (only an Empty one): every request answers as for a missing group. */
    Errors beginDelete() {
        if (!members.isEmpty()) {
            return Errors.NON_EMPTY_GROUP;
        }
        transitionTo(ConsumerGroupState.DEAD);
        return Errors.NONE;
    }

    // ---- saved state ----

    private boolean saveIfChanged() {
        if (!dirty) {
            return true;
        }
        dirty = false;
        long next;
        try {
            next = members.isEmpty() ? deleteSaved() : log.save(key, version, groupEpoch, toJson());
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

    /**
     * A group whose last member left keeps no saved state (as Kafka deletes an empty consumer group's records
     * after its offsets): the next member starts it again at epoch 1.
     */
    private long deleteSaved() {
        if (version > 0) {
            log.delete(key);
        }
        groupEpoch = 0;
        assignmentEpoch = 0;
        target = new HashMap<>();
        return 0;
    }

    /** Continues from the saved state (null: a new group). Members get a full session from now to reach this broker. */
    void restore(ConsumerGroupLog.Saved s, long now) {
        loaded = true;
        if (s == null) {
            return;
        }
        version = s.version();
        JsonNode o;
        try {
            o = Json.MAPPER.readTree(s.state());
        } catch (IOException e) {
            throw new GroupLog.Unavailable("unreadable consumer group state", e);
        }
        groupEpoch = o.path("groupEpoch").asInt();
        assignmentEpoch = o.path("assignmentEpoch").asInt();
        for (JsonNode j : o.path("members")) {
            ConsumerMember m = new ConsumerMember(j.path("memberId").asText());
            m.instanceId = text(j, "instanceId");
            m.rackId = text(j, "rackId");
            m.clientId = j.path("clientId").asText("");
            m.clientHost = j.path("clientHost").asText("");
            m.rebalanceTimeoutMs = j.path("rebalanceTimeoutMs").asInt();
            List<String> names = new ArrayList<>();
            j.path("subscribedNames").forEach(n -> names.add(n.asText()));
            m.subscribedNames = List.copyOf(names);
            m.subscribedRegex = text(j, "subscribedRegex");
            m.serverAssignor = text(j, "serverAssignor");
            m.memberEpoch = j.path("memberEpoch").asInt();
            m.previousEpoch = j.path("previousEpoch").asInt();
            m.reconciliation = Reconciliation.valueOf(j.path("reconciliation").asText());
            m.assigned = partitions(j.path("assigned"));
            m.revoking = partitions(j.path("revoking"));
            m.lastHeartbeatMs = now;
            m.revokeDeadlineMs = now + m.rebalanceTimeoutMs;
            members.put(m.memberId, m);
            if (m.instanceId != null) {
                staticMembers.put(m.instanceId, m.memberId);
            }
            target.put(m.memberId, partitions(j.path("target")));
        }
        // taking the saved state is not a transition: this copy starts where the saved one stands
        state = ConsumerGroupState.EMPTY;
        updateState();
    }

    private String toJson() {
        ObjectNode o = Json.MAPPER.createObjectNode().put("groupEpoch", groupEpoch)
                .put("assignmentEpoch", assignmentEpoch);
        ArrayNode arr = o.putArray("members");
        for (ConsumerMember m : members.values()) {
            ObjectNode j = arr.addObject().put("memberId", m.memberId).put("instanceId", m.instanceId)
                    .put("rackId", m.rackId).put("clientId", m.clientId).put("clientHost", m.clientHost)
                    .put("rebalanceTimeoutMs", m.rebalanceTimeoutMs).put("subscribedRegex", m.subscribedRegex)
                    .put("serverAssignor", m.serverAssignor).put("memberEpoch", m.memberEpoch)
                    .put("previousEpoch", m.previousEpoch).put("reconciliation", m.reconciliation.name());
            ArrayNode names = j.putArray("subscribedNames");
            m.subscribedNames.forEach(names::add);
            j.set("assigned", json(m.assigned));
            j.set("revoking", json(m.revoking));
            j.set("target", json(targetOf(m.memberId)));
        }
        return o.toString();
    }

    private static ObjectNode json(Map<Uuid, Set<Integer>> partitions) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        partitions.forEach((t, ps) -> {
            ArrayNode a = o.putArray(t.toString());
            ps.forEach(a::add);
        });
        return o;
    }

    private static Map<Uuid, Set<Integer>> partitions(JsonNode o) {
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        o.properties().forEach(e -> {
            Set<Integer> ps = new TreeSet<>();
            e.getValue().forEach(p -> ps.add(p.asInt()));
            out.put(Uuid.fromString(e.getKey()), ps);
        });
        return out;
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
