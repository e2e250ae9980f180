package io.queen.kafka.share;

import io.queen.api.Input;
import io.queen.auth.Tenants;
import io.queen.kafka.CoordinatorSql;
import io.queen.kafka.KafkaStore;
import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.cluster.ClusterView;
import io.queen.kafka.group.GroupCoordinator;
import io.queen.kafka.group.ShareGroupCatalog;
import io.queen.kafka.transport.KafkaCaller;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * Share-group membership, held by the group's coordinator (the broker FindCoordinator names, as for every group):
 * ShareGroupHeartbeat joins, keeps and leaves members, ShareGroupDescribe shows them. Share groups need no
 * revocation: the assignment only tells members where to fetch, the records themselves are locked per record, so
 * a new assignment takes effect at once. Partitions are spread over the members subscribed to their topic (each
 * partition to at least one member; with more members than partitions, several members share a partition).
 *
 * <p>Membership is memory only: a broker that takes over a group answers its members UNKNOWN_MEMBER_ID and they join
 * again (the records they held stay locked until their lock expires). Only a join creates a group, and a group
 * without members is forgotten by the timer: what outlives its members (that it began, its cursors, records in
 * flight, configs) is in PostgreSQL, and the next join starts a new one. A member that leaves or expires loses its
 * share sessions on this broker. Thread-safe: one monitor per group; a timer evicts members past the session
 * timeout and releases their records.
 */
@ApplicationScoped
public class ShareGroups implements ShareGroupCatalog {
    private static final Logger LOG = Logger.getLogger(ShareGroups.class);
    static final String ASSIGNOR = "simple";

    record Key(UUID tenant, String group) {
    }

    static final class Member {
        final String id;
        int epoch;
        List<String> subscribed = List.of();
        String clientId;
        String clientHost;
        String rackId;
        long lastSeenMs;
        /** What the member was last sent (null: nothing yet). */
        Map<Uuid, List<Integer>> sent;
        Map<Uuid, List<Integer>> assignment = Map.of();

        Member(String id) {
            this.id = id;
        }
    }

    static final class Group {
        int epoch;
        /** Members by id, in id order (the assignment's order). */
        final TreeMap<String, Member> members = new TreeMap<>();
        /** The topics the assignment was computed from: name -> (id, partition count). */
        Map<String, KafkaStore.Topic> topics = Map.of();
        int assignedEpoch = -1;
        /** Taken out of the map (empty, deleted, coordinated elsewhere): a request holding it starts over. */
        boolean dropped;
    }

    private final ConcurrentHashMap<Key, Group> groups = new ConcurrentHashMap<>();
    private final KafkaShareConfig config;
    private final KafkaStore kafka;
    private final ShareStore store;
    private final ShareGroupConfigs configs;
    private final BrokerRegistry cluster;
    private final GroupCoordinator coordinator;
    private final ShareSessions sessions;
    private final LongSupplier clock = () -> System.nanoTime() / 1_000_000;
    private final ScheduledExecutorService timer;

    ShareGroups(KafkaShareConfig config, KafkaStore kafka, ShareStore store, ShareGroupConfigs configs,
            BrokerRegistry cluster, GroupCoordinator coordinator, ShareSessions sessions) {
        this.coordinator = coordinator;
        this.sessions = sessions;
        this.config = config;
        this.kafka = kafka;
        this.store = store;
        this.configs = configs;
        this.cluster = cluster;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-share-group-timer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(() -> tick(0), 500, 500, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }

    /** Whether this broker coordinates the group now. */
    boolean coordinates(String group) {
        return cluster.view().coordinates(ClusterView.KeyType.GROUP, group);
    }

    @Override
    public boolean live(UUID tenant, String group) {
        return isShareGroup(tenant, group);
    }

    @Override
    public Map<String, String> list(UUID tenant) throws java.sql.SQLException {
        Map<String, String> out = new TreeMap<>();
        for (String group : store.groups(tenant)) {
            out.put(group, isShareGroup(tenant, group) ? "Stable" : "Empty");
        }
        return out;
    }

    @Override
    public boolean delete(UUID tenant, String group) throws java.sql.SQLException {
        Group g = groups.get(new Key(tenant, group));
        if (g != null) {
            synchronized (g) {
                if (!g.members.isEmpty()) {
                    return false;
                }
                drop(new Key(tenant, group), g);
            }
        }
        return store.deleteGroup(tenant, group);
    }

    /** Whether {@code member} is a member of the group on this broker. */
    boolean isMember(UUID tenant, String group, String member) {
        Group g = groups.get(new Key(tenant, group));
        if (g == null) {
            return false;
        }
        synchronized (g) {
            return !g.dropped && g.members.containsKey(member);
        }
    }

    /** Whether this broker holds a live share group of that name (a classic or consumer group may not take it). */
    public boolean isShareGroup(UUID tenant, String group) {
        Group g = groups.get(new Key(tenant, group));
        if (g == null) {
            return false;
        }
        synchronized (g) {
            return !g.members.isEmpty();
        }
    }

    ShareGroupHeartbeatResponseData heartbeat(KafkaCaller caller, ShareGroupHeartbeatRequestData request) {
        ShareGroupHeartbeatResponseData out = new ShareGroupHeartbeatResponseData()
                .setHeartbeatIntervalMs(config.heartbeatIntervalMs());
        String groupId = request.groupId();
        if (!GroupCoordinator.validGroupId(groupId)) {
            return out.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage("invalid group id");
        }
        if (!coordinates(groupId)) {
            return out.setErrorCode(Errors.NOT_COORDINATOR.code());
        }
        String unstorable = Input.firstProblem(
                Input.unstorable("ClientId", caller.clientId()),
                Input.unstorable("MemberId", request.memberId()),
                Input.unstorable("RackId", request.rackId()),
                Input.unstorable("SubscribedTopicNames",
                        Objects.requireNonNullElse(request.subscribedTopicNames(), List.of())),
                coordinator.oversizedSubscription(request.subscribedTopicNames(), null));
        if (unstorable != null) {
            // the member id is bound to SQL by each ShareFetch, the topic names by each heartbeat
            return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(unstorable);
        }
        if (request.memberEpoch() == 0 && request.subscribedTopicNames() == null) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("SubscribedTopicNames must be set when joining");
        }
        UUID tenant = Tenants.of(caller.tenant());
        if (request.memberEpoch() == 0 && coordinator.liveGroup(tenant, groupId)) {
            // one namespace: a live classic or consumer group takes no share member
            return out.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " is not a share group.");
        }
        if (request.memberEpoch() == 0) {
            CoordinatorSql.retriable("share group", () -> store.begin(tenant, groupId));
        }
        Key key = new Key(tenant, groupId);
        while (true) {
            // only a join creates the group: a heartbeat of anyone else leaves nothing behind
            Group g = request.memberEpoch() == 0 ? groups.computeIfAbsent(key, k -> new Group()) : groups.get(key);
            if (g == null) {
                return request.memberEpoch() == -1 ? out.setMemberId(request.memberId()).setMemberEpoch(-1)
                        : out.setErrorCode(Errors.UNKNOWN_MEMBER_ID.code());
            }
            if (heartbeat(caller, request, tenant, g, out)) {
                return out;
            }
            // the group was dropped meanwhile (it was empty): go on with the one that replaces it
        }
    }

    /** The heartbeat on group {@code g}, answered in {@code out}; false when {@code g} was dropped meanwhile. */
    private boolean heartbeat(KafkaCaller caller, ShareGroupHeartbeatRequestData request, UUID tenant, Group g,
            ShareGroupHeartbeatResponseData out) {
        String groupId = request.groupId();
        // the topics of every subscription in the group, this request's included (read before taking the monitor)
        Set<String> names = new TreeSet<>();
        synchronized (g) {
            g.members.values().forEach(m -> names.addAll(m.subscribed));
        }
        if (request.subscribedTopicNames() != null) {
            names.addAll(request.subscribedTopicNames());
        }
        Map<String, KafkaStore.Topic> topics = new LinkedHashMap<>();
        for (KafkaStore.Topic t : CoordinatorSql.retriable("share group",
                () -> kafka.topics(tenant, new ArrayList<>(names)))) {
            topics.put(t.name(), t);
        }
        String left = null;
        try {
            synchronized (g) {
                if (g.dropped) {
                    return false;
                }
                Member m = g.members.get(request.memberId());
                switch (request.memberEpoch()) {
                    case -1 -> {
                        if (m != null) {
                            g.members.remove(m.id);
                            g.epoch++;
                            left = m.id;
                        }
                        out.setMemberId(request.memberId()).setMemberEpoch(-1);
                        return true;
                    }
                    case 0 -> {
                        if (m == null) {
                            if (g.members.size() >= config.maxSize()) {
                                out.setErrorCode(Errors.GROUP_MAX_SIZE_REACHED.code());
                                return true;
                            }
                            String id = request.memberId() == null || request.memberId().isEmpty()
                                    ? Uuid.randomUuid().toString() : request.memberId();
                            m = new Member(id);
                            g.members.put(id, m);
                            g.epoch++;
                        }
                        m.sent = null; // a (re)joining member gets its whole assignment
                    }
                    default -> {
                        if (m == null) {
                            out.setErrorCode(Errors.UNKNOWN_MEMBER_ID.code());
                            return true;
                        }
                        if (request.memberEpoch() != m.epoch) {
                            out.setErrorCode(Errors.FENCED_MEMBER_EPOCH.code());
                            return true;
                        }
                    }
                }
                m.lastSeenMs = clock.getAsLong();
                m.clientId = caller.clientId();
                m.clientHost = caller.clientHost();
                if (request.rackId() != null) {
                    m.rackId = request.rackId();
                }
                if (request.subscribedTopicNames() != null
                        && !new HashSet<>(request.subscribedTopicNames()).equals(new HashSet<>(m.subscribed))) {
                    m.subscribed = List.copyOf(new TreeSet<>(request.subscribedTopicNames()));
                    g.epoch++;
                }
                if (g.assignedEpoch != g.epoch || !sameTopics(g.topics, topics)) {
                    assign(g, topics);
                }
                out.setMemberId(m.id).setMemberEpoch(m.epoch);
                if (!Objects.equals(m.sent, m.assignment)) {
                    m.epoch = g.epoch;
                    m.sent = m.assignment;
                    out.setMemberEpoch(m.epoch).setAssignment(assignment(m.assignment));
                }
                return true;
            }
        } finally {
            if (left != null) {
                gone(tenant, groupId, left);
            }
        }
    }

    private static boolean sameTopics(Map<String, KafkaStore.Topic> a, Map<String, KafkaStore.Topic> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, KafkaStore.Topic> e : a.entrySet()) {
            KafkaStore.Topic o = b.get(e.getKey());
            if (!o.id().equals(e.getValue().id()) || o.partitions() != e.getValue().partitions()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Spreads each topic's partitions over the members subscribed to it: partition i to member i mod n when there
     * are at least as many partitions as members, else member j to partition j mod p (every member gets one,
     * every partition at least one member).
     */
    private static void assign(Group g, Map<String, KafkaStore.Topic> topics) {
        Map<String, Map<Uuid, List<Integer>>> next = new TreeMap<>();
        for (Member m : g.members.values()) {
            next.put(m.id, new LinkedHashMap<>());
        }
        for (KafkaStore.Topic t : topics.values()) {
            List<Member> subscribers = g.members.values().stream().filter(m -> m.subscribed.contains(t.name()))
                    .toList();
            if (subscribers.isEmpty()) {
                continue;
            }
            Uuid id = new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits());
            int n = subscribers.size();
            int p = t.partitions();
            for (int k = 0; k < Math.max(n, p); k++) {
                Member m = subscribers.get(k % n);
                next.get(m.id).computeIfAbsent(id, x -> new ArrayList<>()).add(k % p);
            }
        }
        for (Member m : g.members.values()) {
            Map<Uuid, List<Integer>> a = next.get(m.id);
            a.replaceAll((id, parts) -> parts.stream().distinct().sorted().toList());
            m.assignment = Map.copyOf(a);
        }
        g.topics = Map.copyOf(topics);
        g.assignedEpoch = g.epoch;
    }

    private static ShareGroupHeartbeatResponseData.Assignment assignment(Map<Uuid, List<Integer>> a) {
        List<ShareGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
        a.forEach((id, parts) -> tps.add(new ShareGroupHeartbeatResponseData.TopicPartitions().setTopicId(id)
                .setPartitions(new ArrayList<>(parts))));
        return new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps);
    }

    ShareGroupDescribeResponseData describe(KafkaCaller caller, ShareGroupDescribeRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        ShareGroupDescribeResponseData out = new ShareGroupDescribeResponseData();
        for (String id : request.groupIds()) {
            ShareGroupDescribeResponseData.DescribedGroup d = new ShareGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(id).setAuthorizedOperations(Integer.MIN_VALUE);
            out.groups().add(d);
            if (!GroupCoordinator.validGroupId(id)) {
                d.setErrorCode(Errors.INVALID_GROUP_ID.code()).setGroupState("Dead");
                continue;
            }
            if (!coordinates(id)) {
                d.setErrorCode(Errors.NOT_COORDINATOR.code());
                continue;
            }
            Group g = groups.get(new Key(tenant, id));
            if (g == null) {
                // no member since this broker took the group over: a group that began is Empty, as in Kafka
                if (CoordinatorSql.retriable("share group", () -> store.exists(tenant, id))) {
                    d.setGroupState("Empty").setGroupEpoch(0).setAssignmentEpoch(0).setAssignorName(ASSIGNOR);
                } else {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage("Group " + id + " not found.")
                            .setGroupState("Dead");
                }
                continue;
            }
            synchronized (g) {
                Map<Uuid, String> names = new LinkedHashMap<>();
                g.topics.values().forEach(t -> names.put(
                        new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits()), t.name()));
                d.setGroupState(g.members.isEmpty() ? "Empty" : "Stable").setGroupEpoch(g.epoch)
                        .setAssignmentEpoch(g.assignedEpoch).setAssignorName(ASSIGNOR);
                for (Member m : g.members.values()) {
                    List<ShareGroupDescribeResponseData.TopicPartitions> tps = new ArrayList<>();
                    m.assignment.forEach((tid, parts) -> tps.add(new ShareGroupDescribeResponseData.TopicPartitions()
                            .setTopicId(tid).setTopicName(names.getOrDefault(tid, "")).setPartitions(parts)));
                    d.members().add(new ShareGroupDescribeResponseData.Member().setMemberId(m.id)
                            .setMemberEpoch(m.epoch).setClientId(m.clientId).setClientHost(m.clientHost)
                            .setRackId(m.rackId).setSubscribedTopicNames(m.subscribed)
                            .setAssignment(new ShareGroupDescribeResponseData.Assignment().setTopicPartitions(tps)));
                }
            }
        }
        return out;
    }

    /**
     * One round of the timer: evicts members past their session timeout, forgets groups left without members and
     * groups another broker coordinates now. {@code aheadMs} runs it as if that much more time had passed (tests).
     */
    void tick(long aheadMs) {
        try {
            long now = clock.getAsLong() + aheadMs;
            for (Map.Entry<Key, Group> e : groups.entrySet()) {
                Key k = e.getKey();
                Group g = e.getValue();
                if (!coordinates(k.group())) {
                    synchronized (g) {
                        drop(k, g);
                    }
                    continue;
                }
                List<String> expired = new ArrayList<>();
                synchronized (g) {
                    g.members.values().removeIf(m -> {
                        boolean late = now - m.lastSeenMs > config.sessionTimeoutMs();
                        if (late) {
                            expired.add(m.id);
                        }
                        return late;
                    });
                    if (!expired.isEmpty()) {
                        g.epoch++;
                    }
                    if (g.members.isEmpty()) {
                        drop(k, g);
                    }
                }
                for (String member : expired) {
                    LOG.infof("kafka share group member expired: group=%s member=%s", k.group(), member);
                    gone(k.tenant(), k.group(), member);
                }
            }
        } catch (RuntimeException e) {
            // a failed round must not end the timer: the next one retries
            LOG.error("kafka share group timer round failed", e);
        }
    }

    /** Under {@code g}'s monitor: takes it out of the map, so that a request holding it starts over. */
    private void drop(Key k, Group g) {
        g.dropped = true;
        groups.remove(k, g);
    }

    /** A member left or expired: its share session on this broker ends, its records are released. */
    private void gone(UUID tenant, String group, String member) {
        sessions.end(new ShareSessions.Key(tenant, group, member));
        release(tenant, group, member);
    }

    /** Releases what a member that left held, so other members get it before its locks would expire. */
    private void release(UUID tenant, String group, String member) {
        try {
            store.release(tenant, group, member, configs.settings(tenant, group).deliveryLimit());
        } catch (java.sql.SQLException e) {
            // its locks expire on their own: nothing is lost, the records come back later
            LOG.warnf("kafka share group: releasing the records of member %s failed (they return when their locks"
                    + " expire): %s", member, e.getMessage());
        }
    }
}
