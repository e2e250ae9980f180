package io.queen.kafka.share;

import io.queen.api.Input;
import io.queen.auth.Tenants;
import io.queen.config.QueenConfig;
import io.queen.kafka.KafkaStore;
import io.queen.kafka.RecordBatches;
import io.queen.kafka.group.GroupCoordinator;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import io.queen.wakeup.PopWaiters;
import io.queen.wakeup.WakeSignal;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidShareSessionEpochException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.jboss.logging.Logger;

/**
 * The share-group APIs: ShareGroupHeartbeat and ShareGroupDescribe ({@link ShareGroups}), ShareFetch and
 * ShareAcknowledge. Any broker serves a ShareFetch of any partition: what is acquired, by whom, until when and how
 * often is in PostgreSQL ({@code kafka_share_acquire_v1}), so a member's locks survive the broker that granted
 * them, and a broker that fails loses nothing but its sessions (the client opens a new one). A ShareFetch that
 * acquires nothing waits up to its {@code MaxWaitMs} (capped by the pop timeout cap) on the pops' wake-ups.
 * Stateless apart from the sessions; thread-safe.
 */
@ApplicationScoped
class ShareApis implements KafkaApiProvider {
    private static final Logger LOG = Logger.getLogger(ShareApis.class);
    /** How long a session uses the group's configs before reading them again (a change applies within this). */
    static final long SETTINGS_NANOS = 2_000_000_000L;

    private final ShareGroups groups;
    private final ShareSessions sessions;
    private final ShareStore store;
    private final ShareGroupConfigs configs;
    private final KafkaShareConfig config;
    private final KafkaStore kafka;
    private final RecordBatches batches;
    private final PopWaiters waiters;
    private final long maxWaitMs;
    private final long recheckNanos;

    ShareApis(ShareGroups groups, ShareSessions sessions, ShareStore store, ShareGroupConfigs configs,
            KafkaShareConfig config, KafkaStore kafka, RecordBatches batches, PopWaiters waiters, QueenConfig queen) {
        this.groups = groups;
        this.sessions = sessions;
        this.store = store;
        this.configs = configs;
        this.config = config;
        this.kafka = kafka;
        this.batches = batches;
        this.waiters = waiters;
        this.maxWaitMs = queen.pop().maxTimeoutMs();
        this.recheckNanos = Math.max(1, queen.pop().recheckIntervalMs()) * 1_000_000L;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.SHARE_GROUP_HEARTBEAT, 1, (KafkaHandler<ShareGroupHeartbeatRequestData>) (c, v, r) ->
                        CompletableFuture.completedFuture(groups.heartbeat(c, r)))
                .serve(ApiKeys.SHARE_GROUP_DESCRIBE, 1, (KafkaHandler<ShareGroupDescribeRequestData>) (c, v, r) ->
                        CompletableFuture.completedFuture(groups.describe(c, r)))
                .serve(ApiKeys.SHARE_FETCH, 2, (KafkaHandler<ShareFetchRequestData>) (c, v, r) ->
                        CompletableFuture.completedFuture(fetch(c, v, r)))
                .serve(ApiKeys.SHARE_ACKNOWLEDGE, 2, (KafkaHandler<ShareAcknowledgeRequestData>) (c, v, r) ->
                        CompletableFuture.completedFuture(acknowledge(c, v, r)));
    }

    /** One partition's acknowledgements of a request: offsets with their types, in request order. */
    private record Acks(List<Long> offsets, List<Integer> types) {
        static Acks of(List<? extends Object> batches) {
            Acks a = new Acks(new ArrayList<>(), new ArrayList<>());
            for (Object o : batches) {
                long first;
                long last;
                List<Byte> types;
                if (o instanceof ShareFetchRequestData.AcknowledgementBatch b) {
                    first = b.firstOffset();
                    last = b.lastOffset();
                    types = b.acknowledgeTypes();
                } else {
                    ShareAcknowledgeRequestData.AcknowledgementBatch b =
                            (ShareAcknowledgeRequestData.AcknowledgementBatch) o;
                    first = b.firstOffset();
                    last = b.lastOffset();
                    types = b.acknowledgeTypes();
                }
                if (last < first || last - first > 100_000 || types.isEmpty()
                        || (types.size() != 1 && types.size() != last - first + 1)) {
                    throw new InvalidRequestException(
                            "acknowledgement batch " + first + "-" + last + " with " + types.size() + " types");
                }
                for (long off = first; off <= last; off++) {
                    a.offsets.add(off);
                    // one type stands for the whole batch
                    a.types.add((int) types.get(types.size() == 1 ? 0 : (int) (off - first)));
                }
            }
            return a;
        }
    }

    /**
     * The session's topics by id, the tenant's topics looked up again only when a request names an id the session
     * does not know yet (its first request, a topic added); an id that stays unknown is not a topic. The session
     * keeps only the topics its requests named, not all the tenant's.
     */
    private Map<Uuid, KafkaStore.Topic> topics(UUID tenant, ShareSessions.Session session, List<Uuid> named)
            throws SQLException {
        synchronized (session) {
            if (!session.topics.keySet().containsAll(named)) {
                Set<Uuid> wanted = new HashSet<>(named);
                for (KafkaStore.Topic t : kafka.topics(tenant, null)) {
                    Uuid id = new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits());
                    if (wanted.contains(id)) {
                        session.topics.put(id, t);
                    }
                }
            }
            return new HashMap<>(session.topics);
        }
    }

    ShareFetchResponseData fetch(KafkaCaller caller, short version, ShareFetchRequestData request) throws Exception {
        UUID tenant = Tenants.of(caller.tenant());
        ShareFetchResponseData out = new ShareFetchResponseData();
        String group = request.groupId();
        ShareSessions.Session session;
        try {
            session = session(tenant, group, request.memberId(), request.shareSessionEpoch());
        } catch (ApiException e) {
            return out.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
        ShareGroupConfigs.Settings settings = settings(tenant, group, session);
        out.setAcquisitionLockTimeoutMs(settings.lockMs());
        Map<Uuid, KafkaStore.Topic> known = topics(tenant, session, request.topics().stream()
                .map(ShareFetchRequestData.FetchTopic::topicId).toList());
        Map<ShareSessions.Partition, ShareFetchResponseData.PartitionData> answers = new LinkedHashMap<>();
        synchronized (session) {
            for (ShareFetchRequestData.ForgottenTopic f : request.forgottenTopicsData()) {
                f.partitions().forEach(p -> session.partitions.remove(new ShareSessions.Partition(f.topicId(), p)));
            }
            for (ShareFetchRequestData.FetchTopic t : request.topics()) {
                KafkaStore.Topic topic = known.get(t.topicId());
                for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                    ShareSessions.Partition sp = new ShareSessions.Partition(t.topicId(), p.partitionIndex());
                    if (topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions()) {
                        answers.put(sp, partition(p.partitionIndex()).setErrorCode(
                                (topic == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code()));
                        continue;
                    }
                    if (request.shareSessionEpoch() != -1) {
                        session.partitions.put(sp, topic.name());
                    }
                    if (!p.acknowledgementBatches().isEmpty()) {
                        ShareFetchResponseData.PartitionData pd = answers.computeIfAbsent(sp,
                                x -> partition(p.partitionIndex()));
                        Errors e = acknowledge(tenant, group, request.memberId(), topic.name(), p.partitionIndex(),
                                p.acknowledgementBatches(), settings);
                        pd.setAcknowledgeErrorCode(e.code());
                    }
                }
            }
        }
        if (request.shareSessionEpoch() == -1) {
            store.release(tenant, group, request.memberId(), settings.deliveryLimit());
        } else if (!(version >= 2 && request.isRenewAck())) {  // a renew-only request acquires nothing
            acquire(tenant, group, request, session, settings, answers);
        }
        Map<Uuid, ShareFetchResponseData.ShareFetchableTopicResponse> byTopic = new LinkedHashMap<>();
        answers.forEach((sp, pd) -> {
            ShareFetchResponseData.ShareFetchableTopicResponse tr = byTopic.computeIfAbsent(sp.topicId(),
                    id -> new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(id));
            tr.partitions().add(pd);
        });
        byTopic.values().forEach(tr -> out.responses().add(tr));
        return out;
    }

    /**
     * The request's share session, its group and member checked first; throws the error to answer. A session
     * belongs to a member of the group: the group's coordinator opens none for anyone else. Apache Kafka's brokers do
     * not check membership here, so the answer is the one its ShareFetch has for a session the broker will not hold,
     * SHARE_SESSION_NOT_FOUND: its client sends a new epoch 0, which succeeds once its heartbeat joined the group
     * again. Another broker does not know the members: it opens the session, within the sessions' limit.
     */
    private ShareSessions.Session session(UUID tenant, String group, String member, int epoch) {
        if (!GroupCoordinator.validGroupId(group) || member == null || member.isEmpty()
                || Input.unstorable("MemberId", member) != null) {
            throw new InvalidRequestException("a valid group id and a member id are required");
        }
        ShareSessions.Key key = new ShareSessions.Key(tenant, group, member);
        if (epoch != 0 || !groups.coordinates(group)) {
            return sessions.enter(key, epoch);
        }
        if (!groups.isMember(tenant, group, member)) {
            sessions.end(key); // an epoch 0 closes the member's session, whether or not it opens another
            throw notMember(group, member);
        }
        ShareSessions.Session s = sessions.enter(key, 0);
        if (!groups.isMember(tenant, group, member)) {
            // it left meanwhile, and its leave may have come before this session: end it here
            sessions.end(key, s);
            throw notMember(group, member);
        }
        return s;
    }

    private static ShareSessionNotFoundException notMember(String group, String member) {
        return new ShareSessionNotFoundException("member " + member + " is not a member of share group " + group);
    }

    /** The group's settings, read again once {@link #SETTINGS_NANOS} passed since the session last read them. */
    private ShareGroupConfigs.Settings settings(UUID tenant, String group, ShareSessions.Session session)
            throws SQLException {
        synchronized (session) {
            long now = System.nanoTime();
            if (session.settings == null || now - session.settingsAt > SETTINGS_NANOS) {
                session.settings = configs.settings(tenant, group);
                session.settingsAt = now;
            }
            return session.settings;
        }
    }

    private static ShareFetchResponseData.PartitionData partition(int index) {
        return new ShareFetchResponseData.PartitionData().setPartitionIndex(index).setRecords(MemoryRecords.EMPTY)
                .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1));
    }

    /**
     * Acquires up to the request's record count over the session's partitions, starting where the last fetch
     * stopped; when none is to be had, waits for work (a commit to the topic, a lease freed) until the deadline.
     */
    private void acquire(UUID tenant, String group, ShareFetchRequestData request, ShareSessions.Session session,
            ShareGroupConfigs.Settings settings, Map<ShareSessions.Partition, ShareFetchResponseData.PartitionData>
                    answers) throws Exception {
        List<Map.Entry<ShareSessions.Partition, String>> parts;
        int start;
        synchronized (session) {
            parts = new ArrayList<>(session.partitions.entrySet());
            start = parts.isEmpty() ? 0 : Math.floorMod(session.rotation++, parts.size());
        }
        if (parts.isEmpty()) {
            return;
        }
        OffsetDateTime since;
        synchronized (session) {
            if (session.since == null) {
                session.since = store.begin(tenant, group);
            }
            since = session.since;
        }
        int max = request.maxRecords() > 0 ? request.maxRecords() : 500;
        long deadline = System.nanoTime() + Math.min(Math.max(0, request.maxWaitMs()), maxWaitMs) * 1_000_000L;
        Set<String> queues = new HashSet<>();
        parts.forEach(e -> queues.add(e.getValue()));
        WakeSignal signal = queues.size() == 1 ? waiters.hold(tenant, queues.iterator().next())
                : waiters.tenant(tenant);
        try {
            while (true) {
                long seen = signal.generation();
                int left = max;
                for (int i = 0; i < parts.size() && left > 0; i++) {
                    Map.Entry<ShareSessions.Partition, String> e = parts.get((start + i) % parts.size());
                    String partition = Integer.toString(e.getKey().index());
                    List<ShareStore.Held> held = store.acquire(tenant, e.getValue(), partition, group,
                            request.memberId(), left, config.maxRecordLocks(), settings, since);
                    List<ShareStore.Held> acquired = new ArrayList<>();
                    List<ShareStore.Held> dead = new ArrayList<>();
                    for (ShareStore.Held h : held) {
                        ("acquired".equals(h.kind()) ? acquired : dead).add(h);
                    }
                    deadLetters(tenant, e.getValue(), partition, group, dead, settings);
                    if (!acquired.isEmpty()) {
                        left -= acquired.size();
                        ShareFetchResponseData.PartitionData pd = answers.computeIfAbsent(e.getKey(),
                                x -> partition(x.index()));
                        deliver(tenant, e.getValue(), partition, acquired, pd);
                    }
                }
                long wait = deadline - System.nanoTime();
                if (left < max || wait <= 0) {
                    return;
                }
                try {
                    // bounded: a lost wake-up (a lock that expired, a record released elsewhere) costs one interval
                    signal.awaitChange(seen, Math.min(wait, recheckNanos));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        } finally {
            waiters.release(signal);
        }
    }

    /** The acquired records' batch and their ranges (runs of consecutive offsets with one delivery count). */
    private void deliver(UUID tenant, String queue, String partition, List<ShareStore.Held> acquired,
            ShareFetchResponseData.PartitionData pd) throws SQLException {
        pd.setRecords(batches.records(tenant, queue, partition, acquired.stream().map(ShareStore.Held::offset)
                .toList()));
        ShareFetchResponseData.AcquiredRecords run = null;
        for (ShareStore.Held h : acquired) {
            if (run != null && run.lastOffset() + 1 == h.offset() && run.deliveryCount() == h.deliveryCount()) {
                run.setLastOffset(h.offset());
            } else {
                run = new ShareFetchResponseData.AcquiredRecords().setFirstOffset(h.offset())
                        .setLastOffset(h.offset()).setDeliveryCount((short) h.deliveryCount());
                pd.acquiredRecords().add(run);
            }
        }
    }

    /** Applies one partition's acknowledgements; the dead letters they make are filed at once. */
    private Errors acknowledge(UUID tenant, String group, String member, String queue, int index,
            List<?> batches, ShareGroupConfigs.Settings settings) throws SQLException {
        Acks acks;
        try {
            acks = Acks.of(batches);
        } catch (ApiException e) {
            return Errors.INVALID_REQUEST;
        }
        String partition = Integer.toString(index);
        List<ShareStore.Held> result = store.acknowledge(tenant, queue, partition, group, member,
                acks.offsets().toArray(new Long[0]), acks.types().toArray(new Integer[0]), settings);
        boolean invalid = false;
        List<ShareStore.Held> dead = new ArrayList<>();
        for (ShareStore.Held h : result) {
            if ("invalid".equals(h.kind())) {
                invalid = true;
            } else {
                dead.add(h);
            }
        }
        deadLetters(tenant, queue, partition, group, dead, settings);
        if (acks.types().stream().anyMatch(t -> t == 2)) {
            waiters.freed(tenant, queue); // released records: members waiting for work may take them
        }
        return invalid ? Errors.INVALID_RECORD_STATE : Errors.NONE;
    }

    /** Files rejected or exhausted records of a partition in the dead-letter table with snapshots of them. */
    private void deadLetters(UUID tenant, String queue, String partition, String group, List<ShareStore.Held> dead,
            ShareGroupConfigs.Settings settings) throws SQLException {
        if (dead.isEmpty()) {
            return;
        }
        List<String> errors = new ArrayList<>(dead.size());
        for (ShareStore.Held h : dead) {
            errors.add(h.deliveryCount() >= settings.deliveryLimit()
                    ? "Kafka share group: delivery count limit " + settings.deliveryLimit() + " reached"
                    : "Kafka share group: rejected");
        }
        int filed = store.deadLetters(tenant, queue, partition, group, dead, batches.snapshots(tenant, queue,
                partition, dead.stream().map(ShareStore.Held::offset).toList()), errors, settings);
        LOG.debugf("kafka share group %s: %d records of %s/%s dead-lettered", group, filed, queue, partition);
    }

    ShareAcknowledgeResponseData acknowledge(KafkaCaller caller, short version, ShareAcknowledgeRequestData request)
            throws Exception {
        UUID tenant = Tenants.of(caller.tenant());
        ShareAcknowledgeResponseData out = new ShareAcknowledgeResponseData();
        String group = request.groupId();
        ShareSessions.Session session;
        try {
            if (request.shareSessionEpoch() == 0) {
                throw new InvalidShareSessionEpochException("a ShareAcknowledge cannot open a share session");
            }
            session = session(tenant, group, request.memberId(), request.shareSessionEpoch());
        } catch (ApiException e) {
            return out.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
        ShareGroupConfigs.Settings settings = settings(tenant, group, session);
        if (version >= 2) {
            out.setAcquisitionLockTimeoutMs(settings.lockMs());
        }
        Map<Uuid, KafkaStore.Topic> known = topics(tenant, session, request.topics().stream()
                .map(ShareAcknowledgeRequestData.AcknowledgeTopic::topicId).toList());
        for (ShareAcknowledgeRequestData.AcknowledgeTopic t : request.topics()) {
            ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse tr =
                    new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(t.topicId());
            out.responses().add(tr);
            KafkaStore.Topic topic = known.get(t.topicId());
            for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                ShareAcknowledgeResponseData.PartitionData pd = new ShareAcknowledgeResponseData.PartitionData()
                        .setPartitionIndex(p.partitionIndex()).setCurrentLeader(
                                new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(-1)
                                        .setLeaderEpoch(-1));
                tr.partitions().add(pd);
                if (topic == null || p.partitionIndex() < 0 || p.partitionIndex() >= topic.partitions()) {
                    pd.setErrorCode((topic == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                            .code());
                    continue;
                }
                pd.setErrorCode(acknowledge(tenant, group, request.memberId(), topic.name(), p.partitionIndex(),
                        p.acknowledgementBatches(), settings).code());
            }
        }
        if (request.shareSessionEpoch() == -1) {
            store.release(tenant, group, request.memberId(), settings.deliveryLimit());
        }
        return out;
    }
}
