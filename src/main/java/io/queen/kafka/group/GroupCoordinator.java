package io.queen.kafka.group;

import io.queen.groups.ConsumerGroupStore;
import io.queen.api.Input;
import io.queen.auth.Tenants;
import io.queen.kafka.CoordinatorSql;
import io.queen.kafka.KafkaStore;
import io.queen.kafka.transport.KafkaCall;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.cluster.ClusterView;
import io.queen.shutdown.DrainState;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * The Kafka group coordinator of this broker: the classic consumer-group protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup), group administration (ListGroups, DescribeGroups, DeleteGroups) and committed offsets (OffsetCommit,
 * OffsetFetch). One method per API, taking the parsed request and completing with the response.
 *
 * <p>Each group has one coordinator among the live brokers ({@link ClusterView#coordinator}, the broker FindCoordinator
 * names); a membership or administration request for a group reaching another broker is answered NOT_COORDINATOR
 * and the client looks again. The coordinator holds the membership in memory ({@link ClassicGroups}) and saves it
 * to PostgreSQL at each completed rebalance, so the next coordinator (its broker stopped, or a broker joined)
 * continues the group with its generation. A group this broker stops coordinating is dropped from memory within
 * one timer round. OffsetFetch is answered by any broker (the offsets are in PostgreSQL). Committed offsets are
 * durable: a Kafka group's committed offset of a partition
 * is the Queen cursor of that (partition, group) ({@link GroupOffsetStore}), so Queen's consumer-group routes and the
 * console show a Kafka group's lag, and a group name is one namespace for Kafka consumers and HTTP pops. The commit
 * metadata string has no place in a cursor: it is not kept, and OffsetFetch answers it empty; one longer than Apache
 * Kafka takes is refused as Kafka refuses it ({@link #metadataTooLarge}).
 *
 * <p>Thread-safety: safe for concurrent calls from any number of connections; group state transitions are serialized
 * per group inside {@link ClassicGroups}. Session timeouts and rebalance deadlines are applied by one timer thread
 * every {@value #TICK_MS} ms; once the broker drains, the same timer answers every waiting JoinGroup and SyncGroup
 * NOT_COORDINATOR. Methods that touch PostgreSQL block (the listener calls them on virtual threads).
 */
@ApplicationScoped
public class GroupCoordinator {
    /** How often timers are checked: a dead member is evicted at most this much after its session timeout. */
    static final long TICK_MS = 100;
    private static final Logger LOG = Logger.getLogger(GroupCoordinator.class);
    /**
     * Longest commit metadata an OffsetCommit or TxnOffsetCommit partition may carry: Apache Kafka's default
     * {@code offset.metadata.max.bytes}, which it compares with the string's length in characters.
     */
    public static final int MAX_OFFSET_METADATA_CHARS = 4096;
    /** Queue mode's cursors: never a Kafka group. */
    static final String QUEUE_MODE = "__QUEUE_MODE__";
    private static final String CLASSIC = "classic";
    /** The consumer protocol's group type, and its groups' protocol type. */
    private static final String CONSUMER = "consumer";
    private static final String SHARE = "share";

    private final ClassicGroups groups;
    private final ConsumerGroups consumerGroups;
    private final TopicCatalog catalog;
    private final GroupOffsetStore offsets;
    private final ConsumerGroupStore cursors;
    private final ScheduledExecutorService timer;
    private final DrainState drain;
    private final Supplier<ClusterView> cluster;
    /** Most bytes of one member's subscription ({@link KafkaGroupConfig#maxMemberBytes}). */
    private final long maxMemberBytes;
    /** The share groups, for one namespace of group ids (none in a coordinator built by a unit test). */
    private ShareGroupCatalog shares = ShareGroupCatalog.NONE;

    /** Rebalances since start of the classic groups (completed generations) or the consumer groups (epoch bumps). */
    long rebalances(boolean classic) {
        return classic ? groups.rebalances() : consumerGroups.rebalances();
    }

    /** Members right now of the classic or the consumer groups this broker coordinates. */
    int members(boolean classic) {
        return classic ? groups.members() : consumerGroups.members();
    }

    @Inject
    GroupCoordinator(KafkaGroupConfig config, GroupOffsetStore offsets, ConsumerGroupStore cursors,
            DrainState drain, GroupStateStore log, BrokerRegistry registry, ConsumerGroupStateStore consumerLog,
            KafkaStore topics, ShareGroupCatalog shares) {
        this(config, offsets, cursors, drain, log, registry::view, consumerLog, TopicCatalog.of(topics));
        this.shares = shares;
    }

    GroupCoordinator(KafkaGroupConfig config, GroupOffsetStore offsets, ConsumerGroupStore cursors,
            DrainState drain, GroupLog log, Supplier<ClusterView> cluster, ConsumerGroupLog consumerLog,
            TopicCatalog.Source topics) {
        this.drain = drain;
        this.cluster = cluster;
        this.maxMemberBytes = config.maxMemberBytes().asLongValue();
        this.groups = new ClassicGroups(new ClassicGroups.Settings(config.initialRebalanceDelayMs(),
                config.minSessionTimeoutMs(), config.maxSessionTimeoutMs(), config.maxSize(), maxMemberBytes),
                () -> System.nanoTime() / 1_000_000, log);
        this.consumerGroups = new ConsumerGroups(new ConsumerGroups.Settings(config.consumerSessionTimeoutMs(),
                config.consumerHeartbeatIntervalMs(), config.maxSize(), PartitionAssignor.all()),
                () -> System.nanoTime() / 1_000_000, consumerLog);
        this.catalog = new TopicCatalog(topics, () -> System.nanoTime() / 1_000_000);
        this.offsets = offsets;
        this.cursors = cursors;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-group-timer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }

    private void tick() {
        try {
            groups.dropUnless(k -> here(k.groupId()));
            groups.expire();
            consumerGroups.dropUnless(k -> here(k.groupId()));
            consumerGroups.expire();
            if (drain.draining()) {
                // a stopping broker holds no rebalance open: waiting members look for their coordinator again
                groups.releaseWaiters(Errors.NOT_COORDINATOR);
            }
        } catch (RuntimeException e) {
            // a failed round must not end the timer: the next one retries
            LOG.error("kafka group timer round failed", e);
        }
    }

    // ---- membership ----

    public CompletionStage<JoinGroupResponseData> joinGroup(KafkaCaller caller, short apiVersion,
            JoinGroupRequestData request) {
        if (!validGroupId(request.groupId()) || !here(request.groupId())) {
            Errors e = validGroupId(request.groupId()) ? Errors.NOT_COORDINATOR : Errors.INVALID_GROUP_ID;
            return CompletableFuture.completedFuture(
                    joinResponse(apiVersion, ClassicGroups.JoinResult.error(e, request.memberId())));
        }
        if (consumerGroups.live(key(caller, request.groupId()))
                || shares.live(Tenants.of(caller.tenant()), request.groupId())) {
            // one namespace: a live consumer-protocol or share group takes no classic member (Queen migrates no
            // group)
            return CompletableFuture.completedFuture(joinResponse(apiVersion,
                    ClassicGroups.JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, request.memberId())));
        }
        if (Input.firstProblem(Input.unstorable("ClientId", caller.clientId()),
                Input.unstorable("GroupInstanceId", request.groupInstanceId()),
                Input.unstorable("ProtocolType", request.protocolType()),
                Input.unstorable("Protocols",
                        request.protocols().stream().map(JoinGroupRequestProtocol::name).toList())) != null) {
            return CompletableFuture.completedFuture(joinResponse(apiVersion,
                    ClassicGroups.JoinResult.error(Errors.INVALID_REQUEST, request.memberId())));
        }
        List<ClassicGroups.Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestProtocol p : request.protocols()) {
            protocols.add(new ClassicGroups.Protocol(p.name(), p.metadata()));
        }
        ClassicGroups.JoinRequest join = new ClassicGroups.JoinRequest(request.memberId(), request.groupInstanceId(),
                caller.clientId(), caller.clientHost(), request.sessionTimeoutMs(),
                apiVersion == 0 ? -1 : request.rebalanceTimeoutMs(), request.protocolType(), protocols,
                apiVersion >= 4);
        return groups.join(key(caller, request.groupId()), join).thenApply(r -> joinResponse(apiVersion, r));
    }

    private static JoinGroupResponseData joinResponse(short version, ClassicGroups.JoinResult r) {
        JoinGroupResponseData out = new JoinGroupResponseData().setErrorCode(r.error().code())
                .setGenerationId(r.generationId()).setLeader(r.leaderId()).setMemberId(r.memberId());
        // nullable from version 7; before it an unset protocol is written as ""
        out.setProtocolName(r.protocolName() != null ? r.protocolName() : version >= 7 ? null : "");
        if (version >= 7) {
            out.setProtocolType(r.protocolType());
        }
        List<JoinGroupResponseMember> members = new ArrayList<>();
        for (ClassicGroups.MemberMetadata m : r.members()) {
            JoinGroupResponseMember jm = new JoinGroupResponseMember().setMemberId(m.memberId())
                    .setMetadata(m.metadata());
            if (version >= 5) {
                jm.setGroupInstanceId(m.instanceId());
            }
            members.add(jm);
        }
        return out.setMembers(members);
    }

    public CompletionStage<SyncGroupResponseData> syncGroup(KafkaCaller caller, short apiVersion,
            SyncGroupRequestData request) {
        if (!validGroupId(request.groupId()) || !here(request.groupId())) {
            Errors e = validGroupId(request.groupId()) ? Errors.NOT_COORDINATOR : Errors.INVALID_GROUP_ID;
            return CompletableFuture.completedFuture(syncResponse(apiVersion, ClassicGroups.SyncResult.error(e)));
        }
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestAssignment a : request.assignments()) {
            assignments.put(a.memberId(), a.assignment());
        }
        return groups.sync(key(caller, request.groupId()), request.memberId(), request.groupInstanceId(),
                        request.generationId(), apiVersion >= 5 ? request.protocolType() : null,
                        apiVersion >= 5 ? request.protocolName() : null, assignments)
                .thenApply(r -> syncResponse(apiVersion, r));
    }

    private static SyncGroupResponseData syncResponse(short version, ClassicGroups.SyncResult r) {
        SyncGroupResponseData out = new SyncGroupResponseData().setErrorCode(r.error().code())
                .setAssignment(r.assignment());
        if (version >= 5) {
            out.setProtocolType(r.protocolType()).setProtocolName(r.protocolName());
        }
        return out;
    }

    public CompletionStage<HeartbeatResponseData> heartbeat(KafkaCaller caller, short apiVersion,
            HeartbeatRequestData request) {
        Errors e = !validGroupId(request.groupId()) ? Errors.INVALID_GROUP_ID
                : !here(request.groupId()) ? Errors.NOT_COORDINATOR
                : groups.heartbeat(key(caller, request.groupId()), request.memberId(), request.groupInstanceId(),
                        request.generationId());
        return CompletableFuture.completedFuture(new HeartbeatResponseData().setErrorCode(e.code()));
    }

    public CompletionStage<LeaveGroupResponseData> leaveGroup(KafkaCaller caller, short apiVersion,
            LeaveGroupRequestData request) {
        List<ClassicGroups.LeavingMember> leaving = new ArrayList<>();
        if (apiVersion < 3) {
            leaving.add(new ClassicGroups.LeavingMember(request.memberId(), null));
        } else {
            for (MemberIdentity m : request.members()) {
                leaving.add(new ClassicGroups.LeavingMember(m.memberId(), m.groupInstanceId()));
            }
        }
        LeaveGroupResponseData out = new LeaveGroupResponseData();
        if (!validGroupId(request.groupId())) {
            return CompletableFuture.completedFuture(out.setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        if (!here(request.groupId())) {
            return CompletableFuture.completedFuture(out.setErrorCode(Errors.NOT_COORDINATOR.code()));
        }
        List<ClassicGroups.LeaveResult> results = groups.leave(key(caller, request.groupId()), leaving);
        if (apiVersion < 3) {
            return CompletableFuture.completedFuture(out.setErrorCode(results.get(0).error().code()));
        }
        List<MemberResponse> members = new ArrayList<>();
        for (ClassicGroups.LeaveResult r : results) {
            members.add(new MemberResponse().setMemberId(r.memberId()).setGroupInstanceId(r.instanceId())
                    .setErrorCode(r.error().code()));
        }
        return CompletableFuture.completedFuture(out.setMembers(members));
    }

    // ---- consumer protocol (KIP-848) ----

    public CompletionStage<ConsumerGroupHeartbeatResponseData> consumerGroupHeartbeat(KafkaCaller caller,
            short apiVersion, ConsumerGroupHeartbeatRequestData request) {
        ConsumerGroupHeartbeatResponseData out = new ConsumerGroupHeartbeatResponseData()
                .setHeartbeatIntervalMs(consumerGroups.settings().heartbeatIntervalMs());
        String invalid = Input.firstProblem(invalidHeartbeat(apiVersion, request),
                Input.unstorable("ClientId", caller.clientId()), Input.unstorable("MemberId", request.memberId()),
                Input.unstorable("InstanceId", request.instanceId()), Input.unstorable("RackId", request.rackId()),
                Input.unstorable("SubscribedTopicNames", Objects.requireNonNullElse(request.subscribedTopicNames(),
                        List.of())),
                Input.unstorable("SubscribedTopicRegex", request.subscribedTopicRegex()),
                oversizedSubscription(request.subscribedTopicNames(), request.subscribedTopicRegex()));
        Errors e = !validGroupId(request.groupId()) ? Errors.INVALID_GROUP_ID
                : !here(request.groupId()) ? Errors.NOT_COORDINATOR
                : invalid != null ? Errors.INVALID_REQUEST
                : request.serverAssignor() != null
                        && !consumerGroups.settings().assignors().containsKey(request.serverAssignor())
                        ? Errors.UNSUPPORTED_ASSIGNOR
                : !validRegex(request.subscribedTopicRegex()) ? Errors.INVALID_REGULAR_EXPRESSION
                : request.memberEpoch() == 0 && (classicLive(key(caller, request.groupId()))
                        || shares.live(Tenants.of(caller.tenant()), request.groupId()))
                        ? Errors.GROUP_ID_NOT_FOUND : Errors.NONE;
        if (e != Errors.NONE) {
            String message = switch (e) {
                case INVALID_REQUEST -> invalid;
                case UNSUPPORTED_ASSIGNOR -> "ServerAssignor " + request.serverAssignor() + " is not supported."
                        + " Supported assignors: " + String.join(", ", consumerGroups.settings().assignors().keySet())
                        + ".";
                case INVALID_REGULAR_EXPRESSION -> "SubscribedTopicRegex " + request.subscribedTopicRegex()
                        + " is not a valid regular expression.";
                case GROUP_ID_NOT_FOUND -> "Group " + request.groupId() + " is not a consumer group.";
                default -> null;
            };
            return CompletableFuture.completedFuture(out.setErrorCode(e.code()).setErrorMessage(message));
        }
        Map<Uuid, Set<Integer>> owned = null;
        if (request.topicPartitions() != null) {
            owned = new HashMap<>();
            for (ConsumerGroupHeartbeatRequestData.TopicPartitions t : request.topicPartitions()) {
                owned.computeIfAbsent(t.topicId(), k -> new java.util.TreeSet<>()).addAll(t.partitions());
            }
        }
        UUID tenant = Tenants.of(caller.tenant());
        Map<String, ConsumerGroup.TopicInfo> topics = sql(() -> catalog.topics(tenant,
                request.subscribedTopicNames()));
        ConsumerGroup.HeartbeatResult r = consumerGroups.heartbeat(key(caller, request.groupId()),
                new ConsumerGroup.Heartbeat(request.memberId(), request.memberEpoch(), request.instanceId(),
                        request.rackId(), request.rebalanceTimeoutMs(), request.subscribedTopicNames(),
                        apiVersion >= 1 ? request.subscribedTopicRegex() : null, request.serverAssignor(), owned,
                        caller.clientId(), caller.clientHost()), topics);
        out.setErrorCode(r.error().code()).setErrorMessage(r.message());
        if (r.error() == Errors.NONE) {
            out.setMemberId(r.memberId()).setMemberEpoch(r.memberEpoch());
            if (r.assignment() != null) {
                ConsumerGroupHeartbeatResponseData.Assignment a = new ConsumerGroupHeartbeatResponseData.Assignment();
                r.assignment().forEach((t, ps) -> a.topicPartitions().add(
                        new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(t)
                                .setPartitions(new ArrayList<>(ps))));
                out.setAssignment(a);
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    /** Why a heartbeat is malformed (Apache Kafka's checks, its messages), or null when it is not. */
    private static String invalidHeartbeat(short apiVersion, ConsumerGroupHeartbeatRequestData r) {
        int epoch = r.memberEpoch();
        if ("".equals(r.instanceId())) {
            return "InstanceId can't be empty.";
        }
        if ("".equals(r.rackId())) {
            return "RackId can't be empty.";
        }
        if ((apiVersion >= 1 || epoch != 0) && r.memberId().isEmpty()) {
            return "MemberId can't be empty.";
        }
        if (epoch == 0) {
            if (r.rebalanceTimeoutMs() == -1) {
                return "RebalanceTimeoutMs must be provided in first request.";
            }
            if (r.topicPartitions() == null || !r.topicPartitions().isEmpty()) {
                return "TopicPartitions must be empty when (re-)joining.";
            }
            // an empty list is a subscription (a client-side pattern matching no topic yet)
            if (r.subscribedTopicNames() == null && (apiVersion < 1 || r.subscribedTopicRegex() == null)) {
                return "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.";
            }
        } else if (epoch == ConsumerGroup.STATIC_LEAVE && r.instanceId() == null) {
            return "InstanceId can't be null.";
        } else if (epoch < ConsumerGroup.STATIC_LEAVE) {
            return "MemberEpoch is invalid.";
        }
        return null;
    }

    private static boolean validRegex(String regex) {
        if (regex == null || regex.isEmpty()) {
            return true;
        }
        try {
            com.google.re2j.Pattern.compile(regex);
            return true;
        } catch (com.google.re2j.PatternSyntaxException e) {
            return false;
        }
    }

    /** Whether the id names a classic or consumer-protocol group with members here (a share group cannot take it). */
    public boolean liveGroup(UUID tenant, String groupId) {
        ClassicGroups.Key key = new ClassicGroups.Key(tenant, groupId);
        return classicLive(key) || consumerGroups.live(key);
    }

    /** Whether the id names a classic group with members (so the consumer protocol cannot use it). */
    private boolean classicLive(ClassicGroups.Key key) {
        ClassicGroups.GroupView v = groups.describe(key);
        return v != null && !v.members().isEmpty();
    }

    public CompletionStage<ConsumerGroupDescribeResponseData> consumerGroupDescribe(KafkaCaller caller,
            short apiVersion, ConsumerGroupDescribeRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        ConsumerGroupDescribeResponseData out = new ConsumerGroupDescribeResponseData();
        Map<Uuid, String> names = null;
        for (String id : request.groupIds()) {
            ConsumerGroupDescribeResponseData.DescribedGroup d = null;
            if (validGroupId(id) && here(id)) {
                if (names == null) {
                    UUID t = tenant;
                    names = sql(() -> catalog.names(t));
                }
                Map<Uuid, String> topicNames = names;
                d = consumerGroups.read(new ClassicGroups.Key(tenant, id),
                        g -> g.members().isEmpty() ? null : ConsumerGroupAnswers.described(g, topicNames),
                        () -> null);
            }
            if (d == null) {
                Errors e = !validGroupId(id) ? Errors.INVALID_GROUP_ID
                        : !here(id) ? Errors.NOT_COORDINATOR : Errors.GROUP_ID_NOT_FOUND;
                d = new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(id)
                        .setGroupState(ConsumerGroupState.DEAD.wire).setErrorCode(e.code())
                        .setErrorMessage(e == Errors.GROUP_ID_NOT_FOUND
                                ? "Group " + id + " is not a consumer group." : null);
            }
            out.groups().add(d.setAuthorizedOperations(Integer.MIN_VALUE));
        }
        return CompletableFuture.completedFuture(out);
    }

    // ---- administration ----

    public CompletionStage<ListGroupsResponseData> listGroups(KafkaCaller caller, short apiVersion,
            ListGroupsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        Set<String> states = new java.util.HashSet<>();
        if (apiVersion >= 4) {
            request.statesFilter().forEach(s -> states.add(s.toLowerCase(Locale.ROOT)));
        }
        ListGroupsResponseData out = new ListGroupsResponseData().setGroups(new ArrayList<>());
        Set<String> types = new java.util.HashSet<>();
        if (apiVersion >= 5) {
            request.typesFilter().forEach(t -> types.add(t.toLowerCase(Locale.ROOT)));
        }
        // each group as {type, protocol type, state}
        Map<String, String[]> shown = new LinkedHashMap<>();
        for (ClassicGroups.GroupView g : groups.list(tenant)) {
            shown.put(g.groupId(), new String[] {CLASSIC, g.protocolType(), g.state().wire});
        }
        // groups known only by their offsets (Kafka lists them as Empty groups without a protocol type)
        for (String name : sql(() -> offsets.groupsWithOffsets(tenant, null))) {
            shown.putIfAbsent(name, new String[] {CLASSIC, "", ClassicGroupState.EMPTY.wire});
        }
        for (String[] g : consumerGroups.list(tenant, g -> new String[] {g.key().groupId(), g.state().wire})) {
            shown.put(g[0], new String[] {CONSUMER, CONSUMER, g[1]});
        }
        sql(() -> shares.list(tenant)).forEach((name, state) -> shown.put(name, new String[] {SHARE, SHARE, state}));
        // each broker lists the groups it coordinates: an admin client asking every broker sees each group once
        shown.keySet().removeIf(name -> !here(name));
        for (Map.Entry<String, String[]> g : shown.entrySet()) {
            String[] v = g.getValue();
            if ((!states.isEmpty() && !states.contains(v[2].toLowerCase(Locale.ROOT)))
                    || (!types.isEmpty() && !types.contains(v[0]))) {
                continue;
            }
            ListedGroup l = new ListedGroup().setGroupId(g.getKey()).setProtocolType(v[1]);
            if (apiVersion >= 4) {
                l.setGroupState(v[2]);
            }
            if (apiVersion >= 5) {
                l.setGroupType(v[0]);
            }
            out.groups().add(l);
        }
        return CompletableFuture.completedFuture(out);
    }

    /** One member of a Kafka group: its assigned partitions only while the group is Stable (as DescribeGroups). */
    public record MemberSnapshot(String memberId, String instanceId, String clientId, String clientHost,
            List<TopicPartition> assigned, java.time.Instant joinedAt) {
    }

    /** A Kafka group's membership held by this broker: state, protocol type and name, members by member id. */
    public record GroupSnapshot(String state, String protocolType, String protocol, List<MemberSnapshot> members) {
    }

    /**
     * A read-only snapshot of a group this broker coordinates, with the classic or the consumer protocol (what the
     * console's members view shows), or null when it holds no membership for it. Takes the group's monitor once, as DescribeGroups.
     */
    public GroupSnapshot snapshot(UUID tenant, String groupId) {
        ClassicGroups.GroupView v = validGroupId(groupId) ? groups.describe(new ClassicGroups.Key(tenant, groupId))
                : null;
        if (v == null || v.state() == ClassicGroupState.DEAD) {
            return validGroupId(groupId) ? consumerSnapshot(tenant, groupId) : null;
        }
        List<MemberSnapshot> members = new ArrayList<>();
        for (ClassicGroups.MemberView m : v.members()) {
            members.add(new MemberSnapshot(m.memberId(), m.instanceId(), m.clientId(), m.clientHost(),
                    assigned(v.protocolType(), m.assignment()), m.joinedAt()));
        }
        members.sort(java.util.Comparator.comparing(MemberSnapshot::memberId));
        return new GroupSnapshot(v.state().wire, v.protocolType(), v.protocolName(), members);
    }

    /** A consumer-protocol group held here, as {@link #snapshot} shows it (its members' current partitions). */
    private GroupSnapshot consumerSnapshot(UUID tenant, String groupId) {
        ClassicGroups.Key key = new ClassicGroups.Key(tenant, groupId);
        if (!consumerGroups.held(key)) {
            return null;
        }
        Map<Uuid, String> names = sql(() -> catalog.names(tenant));
        return consumerGroups.read(key, g -> {
            List<MemberSnapshot> members = new ArrayList<>();
            for (ConsumerMember m : g.members().values()) {
                List<TopicPartition> assigned = new ArrayList<>();
                m.assigned.forEach((t, ps) -> ps.forEach(p -> assigned.add(
                        new TopicPartition(names.getOrDefault(t, t.toString()), p))));
                members.add(new MemberSnapshot(m.memberId, m.instanceId, m.clientId, m.clientHost, assigned,
                        m.joinedAt));
            }
            members.sort(java.util.Comparator.comparing(MemberSnapshot::memberId));
            return new GroupSnapshot(g.state().wire, CONSUMER, g.assignorName(), members);
        }, () -> null);
    }

    /**
     * The partitions a consumer-protocol assignment names, read with the client library's own decoder; none for
     * another protocol type or bytes that do not decode (the leader's client wrote them).
     */
    private static List<TopicPartition> assigned(String protocolType, byte[] assignment) {
        if (!"consumer".equals(protocolType) || assignment.length == 0) {
            return List.of();
        }
        try {
            return org.apache.kafka.clients.consumer.internals.ConsumerProtocol
                    .deserializeAssignment(java.nio.ByteBuffer.wrap(assignment)).partitions();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    public CompletionStage<DescribeGroupsResponseData> describeGroups(KafkaCaller caller, short apiVersion,
            DescribeGroupsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        List<String> unknown = new ArrayList<>();
        Set<String> consumerIds = new java.util.HashSet<>();
        Map<String, ClassicGroups.GroupView> views = new HashMap<>();
        for (String id : request.groups()) {
            boolean mine = validGroupId(id) && here(id);
            ClassicGroups.GroupView v = mine ? groups.describe(new ClassicGroups.Key(tenant, id)) : null;
            if (v != null) {
                views.put(id, v);
            } else if (mine && (consumerGroups.live(new ClassicGroups.Key(tenant, id)) || shares.live(tenant, id))) {
                consumerIds.add(id);
            } else if (mine) {
                unknown.add(id);
            }
        }
        Set<String> withOffsets = unknown.isEmpty() ? Set.of() : sql(() -> offsets.groupsWithOffsets(tenant, unknown));
        DescribeGroupsResponseData out = new DescribeGroupsResponseData();
        for (String id : request.groups()) {
            DescribedGroup d = new DescribedGroup().setGroupId(id).setProtocolType("").setProtocolData("");
            if (apiVersion >= 3) {
                d.setAuthorizedOperations(Integer.MIN_VALUE); // "not provided": Queen has no per-group ACLs
            }
            ClassicGroups.GroupView v = views.get(id);
            if (!validGroupId(id)) {
                d.setErrorCode(Errors.INVALID_GROUP_ID.code()).setGroupState(ClassicGroupState.DEAD.wire);
            } else if (!here(id)) {
                d.setErrorCode(Errors.NOT_COORDINATOR.code()).setGroupState(ClassicGroupState.DEAD.wire);
            } else if (v != null) {
                d.setGroupState(v.state().wire).setProtocolType(v.protocolType()).setProtocolData(v.protocolName());
                for (ClassicGroups.MemberView m : v.members()) {
                    DescribedGroupMember dm = new DescribedGroupMember().setMemberId(m.memberId())
                            .setClientId(m.clientId()).setClientHost(m.clientHost())
                            .setMemberMetadata(m.metadata()).setMemberAssignment(m.assignment());
                    if (apiVersion >= 4) {
                        dm.setGroupInstanceId(m.instanceId());
                    }
                    d.members().add(dm);
                }
            } else if (consumerIds.contains(id)) {
                // as Apache Kafka: the classic API does not describe a consumer-protocol or share group
                d.setGroupState(ClassicGroupState.DEAD.wire);
                if (apiVersion >= 6) {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + id + " is not a classic group.");
                }
            } else if (withOffsets.contains(id)) {
                d.setGroupState(ClassicGroupState.EMPTY.wire);
            } else {
                d.setGroupState(ClassicGroupState.DEAD.wire);
                if (apiVersion >= 6) {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + id + " not found.");
                }
            }
            out.groups().add(d);
        }
        return CompletableFuture.completedFuture(out);
    }

    public CompletionStage<DeleteGroupsResponseData> deleteGroups(KafkaCaller caller, short apiVersion,
            DeleteGroupsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        DeletableGroupResultCollection results = new DeletableGroupResultCollection();
        for (String id : request.groupsNames()) {
            if (results.find(id) != null) {
                continue; // named twice: one answer
            }
            DeletableGroupResult r = new DeletableGroupResult().setGroupId(id);
            results.add(r);
            if (!validGroupId(id)) {
                r.setErrorCode(Errors.INVALID_GROUP_ID.code());
                continue;
            }
            if (!here(id)) {
                r.setErrorCode(Errors.NOT_COORDINATOR.code());
                continue;
            }
            ClassicGroups.Key key = new ClassicGroups.Key(tenant, id);
            Errors e = consumerGroups.live(key) || shares.live(tenant, id) ? Errors.NON_EMPTY_GROUP
                    : groups.beginDelete(key);
            if (e != Errors.NONE) {
                r.setErrorCode(e.code());
                continue;
            }
            try {
                ConsumerGroupStore.Deleted d = sql(() -> cursors.delete(tenant, id, null, true));
                boolean share = sql(() -> shares.delete(tenant, id));
                if (d.partitions() == 0 && d.metadata() == 0 && !share) {
                    r.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code());
                }
            } finally {
                groups.deleted(key);
            }
        }
        return CompletableFuture.completedFuture(new DeleteGroupsResponseData().setResults(results));
    }

    // ---- offsets ----

    public CompletionStage<OffsetCommitResponseData> offsetCommit(KafkaCaller caller, short apiVersion,
            OffsetCommitRequestData request) {
        return offsetCommits(List.of(new KafkaCall<>(caller, apiVersion, request))).get(0);
    }

    /**
     * One connection's OffsetCommits that queued up while its previous one ran, in request order: each checked and
     * answered on its own, the offsets of each group written by one call, where a later commit's offset of a
     * partition replaces an earlier one's (the state both would have left once run one after the other). A failed
     * write fails the answers of that group's commits.
     */
    public List<CompletableFuture<OffsetCommitResponseData>> offsetCommits(
            List<KafkaCall<OffsetCommitRequestData>> calls) {
        record Group(UUID tenant, String id) {
        }
        Errors[] groupErrors = new Errors[calls.size()];
        Group[] groupOf = new Group[calls.size()];
        Map<Group, Map<TopicPartition, GroupOffsetStore.PartitionOffset>> wanted = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            KafkaCaller caller = calls.get(i).caller();
            OffsetCommitRequestData request = calls.get(i).request();
            groupOf[i] = new Group(Tenants.of(caller.tenant()), request.groupId());
            groupErrors[i] = commitError(caller, request);
            if (groupErrors[i] != Errors.NONE) {
                continue;
            }
            for (OffsetCommitRequestTopic t : request.topics()) {
                if (byName(t.name()) && validTopic(t.name())) {
                    for (OffsetCommitRequestPartition p : t.partitions()) {
                        if (p.committedOffset() >= 0 && p.partitionIndex() >= 0
                                && !metadataTooLarge(p.committedMetadata())) {
                            wanted.computeIfAbsent(groupOf[i], g -> new LinkedHashMap<>())
                                    .put(new TopicPartition(t.name(), p.partitionIndex()),
                                            new GroupOffsetStore.PartitionOffset(t.name(), p.partitionIndex(),
                                                    p.committedOffset()));
                        }
                    }
                }
            }
        }
        Map<Group, Set<TopicPartition>> stored = new HashMap<>();
        Map<Group, RuntimeException> failed = new HashMap<>();
        wanted.forEach((g, offsetsOf) -> {
            try {
                stored.put(g, sql(() -> offsets.commit(g.tenant(), g.id(), new ArrayList<>(offsetsOf.values()))));
            } catch (RuntimeException e) {
                failed.put(g, e);
            }
        });
        List<CompletableFuture<OffsetCommitResponseData>> out = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            KafkaCall<OffsetCommitRequestData> call = calls.get(i);
            Group g = groupOf[i];
            RuntimeException e = groupErrors[i] == Errors.NONE ? failed.get(g) : null;
            out.add(e != null ? CompletableFuture.failedFuture(e) : CompletableFuture.completedFuture(
                    commitAnswer(call.apiVersion(), call.request(), groupErrors[i], stored.getOrDefault(g, Set.of()))));
        }
        return out;
    }

    /** What an OffsetCommit's group and member say about it: NONE, or the error every partition is answered. */
    private Errors commitError(KafkaCaller caller, OffsetCommitRequestData request) {
        if (!validGroupId(request.groupId())) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!here(request.groupId())) {
            return Errors.NOT_COORDINATOR;
        }
        ClassicGroups.Key key = key(caller, request.groupId());
        Errors consumer = consumerCheck(key, request.memberId(), request.generationIdOrMemberEpoch(), true);
        return consumer != null ? consumer : groups.validateCommit(key, request.memberId(),
                request.groupInstanceId(), request.generationIdOrMemberEpoch());
    }

    /** The answer to one OffsetCommit: {@code stored} holds the partitions of its group that were written. */
    private static OffsetCommitResponseData commitAnswer(short apiVersion, OffsetCommitRequestData request,
            Errors groupError, Set<TopicPartition> stored) {
        OffsetCommitResponseData out = new OffsetCommitResponseData();
        for (OffsetCommitRequestTopic t : request.topics()) {
            OffsetCommitResponseTopic rt = new OffsetCommitResponseTopic().setName(t.name());
            if (apiVersion >= 10) {
                rt.setTopicId(t.topicId());
            }
            for (OffsetCommitRequestPartition p : t.partitions()) {
                Errors e;
                if (groupError != Errors.NONE) {
                    e = groupError;
                } else if (!byName(t.name())) {
                    e = apiVersion >= 10 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                } else if (p.committedOffset() < 0) {
                    e = Errors.OFFSET_OUT_OF_RANGE; // a cursor cannot stand before offset 0
                } else if (metadataTooLarge(p.committedMetadata())) {
                    e = Errors.OFFSET_METADATA_TOO_LARGE;
                } else if (stored.contains(new TopicPartition(t.name(), p.partitionIndex()))) {
                    e = Errors.NONE;
                } else {
                    e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                rt.partitions().add(new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(e.code()));
            }
            out.topics().add(rt);
        }
        return out;
    }

    /**
     * A consumer-protocol group's check of an OffsetCommit or OffsetFetch (its member and member epoch), or null when
     * the group is not one (a classic group, or one that only holds offsets).
     */
    private Errors consumerCheck(ClassicGroups.Key key, String memberId, int memberEpoch, boolean commit) {
        if (!consumerGroups.held(key) && groups.held(key)) {
            return null;
        }
        return consumerGroups.read(key, g -> g.members().isEmpty() ? null
                : g.validateOffsets(memberId, memberEpoch, commit), () -> null);
    }

    /**
     * Whether a TxnOffsetCommit of this member may stage offsets for {@code groupId} (Apache Kafka's zombie fencing:
     * ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID; NOT_COORDINATOR on a broker that does not
     * coordinate the group); a valid commit counts as the member's heartbeat.
     */
    public Errors validateTxnCommit(KafkaCaller caller, String groupId, String memberId, String instanceId,
            int generationId) {
        if (!here(groupId)) {
            return Errors.NOT_COORDINATOR;
        }
        ClassicGroups.Key key = key(caller, groupId);
        // a commit naming no member and no generation (older TxnOffsetCommit versions) is taken as Kafka takes it
        boolean named = generationId >= 0 || (memberId != null && !memberId.isEmpty());
        Errors consumer = named ? consumerCheck(key, memberId, generationId, true) : null;
        return consumer != null ? consumer : groups.validateCommit(key, memberId, instanceId, generationId, true);
    }

    public CompletionStage<OffsetFetchResponseData> offsetFetch(KafkaCaller caller, short apiVersion,
            OffsetFetchRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        OffsetFetchResponseData out = new OffsetFetchResponseData();
        if (apiVersion >= 8) {
            for (OffsetFetchRequestGroup g : request.groups()) {
                out.groups().add(fetchGroup(tenant, apiVersion, g, request.requireStable()));
            }
            return CompletableFuture.completedFuture(out);
        }
        // before version 8 a request names one group: asked and answered in the shape of version 8's
        OffsetFetchRequestGroup one = new OffsetFetchRequestGroup().setGroupId(request.groupId()).setTopics(
                request.topics() == null ? null : request.topics().stream().map(t -> new OffsetFetchRequestTopics()
                        .setName(t.name()).setPartitionIndexes(t.partitionIndexes())).toList());
        OffsetFetchResponseGroup g = fetchGroup(tenant, apiVersion, one, request.requireStable());
        out.setErrorCode(g.errorCode());
        for (OffsetFetchResponseTopics t : g.topics()) {
            OffsetFetchResponseTopic rt = new OffsetFetchResponseTopic().setName(t.name());
            for (OffsetFetchResponsePartitions p : t.partitions()) {
                rt.partitions().add(new OffsetFetchResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setCommittedOffset(p.committedOffset()).setCommittedLeaderEpoch(p.committedLeaderEpoch())
                        .setMetadata(p.metadata()).setErrorCode(p.errorCode()));
            }
            out.topics().add(rt);
        }
        return CompletableFuture.completedFuture(out);
    }

    /**
     * One group's offsets: of the partitions asked for, or (topics null) every partition it has an offset on. With
     * {@code requireStable}, a partition on which an open Kafka transaction has staged an offset for the group is
     * answered UNSTABLE_OFFSET_COMMIT (the client retries until that transaction ends).
     */
    private OffsetFetchResponseGroup fetchGroup(UUID tenant, short apiVersion, OffsetFetchRequestGroup g,
            boolean requireStable) {
        OffsetFetchResponseGroup rg = new OffsetFetchResponseGroup().setGroupId(g.groupId());
        if (!validGroupId(g.groupId())) {
            return rg.setErrorCode(Errors.INVALID_GROUP_ID.code());
        }
        if (apiVersion >= 9 && g.memberId() != null) {
            // a consumer-protocol member names itself: its coordinator checks it is in the group at that epoch
            Errors e = !here(g.groupId()) ? Errors.NOT_COORDINATOR
                    : consumerCheck(new ClassicGroups.Key(tenant, g.groupId()), g.memberId(), g.memberEpoch(), false);
            if (e != null && e != Errors.NONE) {
                return rg.setErrorCode(e.code());
            }
        }
        Map<String, List<Integer>> asked = null;
        Map<String, Uuid> ids = new HashMap<>();
        List<String> topicNames = null;
        if (g.topics() != null) {
            asked = new LinkedHashMap<>();
            for (OffsetFetchRequestTopics t : g.topics()) {
                asked.computeIfAbsent(t.name(), k -> new ArrayList<>()).addAll(t.partitionIndexes());
                ids.put(t.name(), t.topicId());
            }
            topicNames = new ArrayList<>(asked.keySet());
        }
        Map<String, Map<Integer, Long>> found = fetch(tenant, g.groupId(), topicNames);
        List<String> askedNames = topicNames;
        Set<TopicPartition> unstable = requireStable ? sql(() -> offsets.unstable(tenant, g.groupId(), askedNames))
                : Set.of();
        for (Map.Entry<String, List<Integer>> t : answerShape(asked, found).entrySet()) {
            OffsetFetchResponseTopics rt = new OffsetFetchResponseTopics().setName(t.getKey());
            if (apiVersion >= 10 && ids.containsKey(t.getKey())) {
                rt.setTopicId(ids.get(t.getKey()));
            }
            boolean unknownId = apiVersion >= 10 && !byName(t.getKey());
            Map<Integer, Long> have = found.getOrDefault(t.getKey(), Map.of());
            for (int p : t.getValue()) {
                boolean pending = unstable.contains(new TopicPartition(t.getKey(), p));
                rt.partitions().add(new OffsetFetchResponsePartitions().setPartitionIndex(p)
                        .setCommittedOffset(pending ? -1L : have.getOrDefault(p, -1L)).setMetadata("")
                        .setCommittedLeaderEpoch(-1).setErrorCode(unknownId ? Errors.UNKNOWN_TOPIC_ID.code()
                                : pending ? Errors.UNSTABLE_OFFSET_COMMIT.code() : Errors.NONE.code()));
            }
            rg.topics().add(rt);
        }
        return rg;
    }

    /** The group's stored offsets by topic and partition. */
    private Map<String, Map<Integer, Long>> fetch(UUID tenant, String group, List<String> topics) {
        Map<String, Map<Integer, Long>> found = new LinkedHashMap<>();
        List<String> valid = topics == null ? null : topics.stream().filter(GroupCoordinator::validTopic).toList();
        if (valid != null && valid.isEmpty()) {
            return found;
        }
        for (GroupOffsetStore.PartitionOffset o : sql(() -> offsets.fetch(tenant, group, valid))) {
            found.computeIfAbsent(o.topic(), k -> new HashMap<>()).put(o.partition(), o.offset());
        }
        return found;
    }

    /** The partitions an OffsetFetch answers: those asked for, or (all topics asked) every stored one. */
    private static Map<String, List<Integer>> answerShape(Map<String, List<Integer>> asked,
            Map<String, Map<Integer, Long>> found) {
        if (asked != null) {
            return asked;
        }
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        found.forEach((t, parts) -> out.put(t, parts.keySet().stream().sorted().toList()));
        return out;
    }

    /** A database call whose failure the client should retry: COORDINATOR_NOT_AVAILABLE, the cause in the log. */
    private static <T> T sql(CoordinatorSql.Call<T> call) {
        return CoordinatorSql.retriable("group offsets", call);
    }

    // ---- input ----

    /** Whether this broker coordinates the group now (the one choice FindCoordinator also answers with). */
    private boolean here(String groupId) {
        return cluster.get().coordinates(ClusterView.KeyType.GROUP, groupId);
    }

    private static ClassicGroups.Key key(KafkaCaller caller, String groupId) {
        return new ClassicGroups.Key(Tenants.of(caller.tenant()), groupId);
    }

    /**
     * Why a heartbeat's subscription is more than the coordinator keeps for a member, as an INVALID_REQUEST message
     * (the Java client's heartbeat treats the code as fatal and shows the message); null when it is not.
     */
    public String oversizedSubscription(List<String> names, String regex) {
        long bytes = regex == null ? 0 : regex.length();
        for (String n : names == null ? List.<String>of() : names) {
            bytes += n == null ? 0 : n.length();
        }
        if (bytes <= maxMemberBytes) {
            return null;
        }
        return (regex == null ? "SubscribedTopicNames hold" : "SubscribedTopicNames and SubscribedTopicRegex hold")
                + " more than " + maxMemberBytes + " bytes, the most a member may keep"
                + " (QUEEN_KAFKA_GROUP_MAX_MEMBER_BYTES).";
    }

    /** A group id Queen can hold as a consumer-group name (the rules of every name, and not queue mode's). */
    public static boolean validGroupId(String id) {
        return id != null && !id.isEmpty() && !QUEUE_MODE.equals(id) && Input.isValid(id, Input.MAX_NAME_CHARS);
    }

    /**
     * Whether an offset's commit metadata is longer than Apache Kafka takes: that partition is answered
     * OFFSET_METADATA_TOO_LARGE and not committed, the request's other partitions are. Queen keeps no metadata,
     * but a client learns of metadata it could not keep in Kafka here too.
     */
    public static boolean metadataTooLarge(String metadata) {
        return metadata != null && metadata.length() > MAX_OFFSET_METADATA_CHARS;
    }

    private static boolean validTopic(String name) {
        return name != null && !name.isEmpty() && Input.isValid(name, Input.MAX_NAME_CHARS);
    }

    /** Topics are addressed by name; a request naming a topic only by id (OffsetCommit/OffsetFetch v10) is not. */
    private static boolean byName(String name) {
        return name != null && !name.isEmpty();
    }
}
