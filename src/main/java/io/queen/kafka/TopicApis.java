package io.queen.kafka;

import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.cluster.ClusterView;
import io.queen.kafka.cluster.KafkaNode;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.EndpointType;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata, DescribeCluster, CreateTopics, DeleteTopics and FindCoordinator. The cluster clients see is the live
 * brokers on this database ({@link BrokerRegistry}): Metadata and DescribeCluster list them (Metadata spreads
 * partition leadership over them), FindCoordinator names the broker the {@link ClusterView} picks for each key.
 * Every broker can serve every partition (the log is in PostgreSQL), so leadership only spreads the clients'
 * connections. Stateless (reads the current view), thread-safe.
 */
@ApplicationScoped
class TopicApis implements KafkaApiProvider {
    static final String CLUSTER_ID = "queen";

    private final Topics topics;
    private final BrokerRegistry cluster;

    TopicApis(Topics topics, BrokerRegistry cluster) {
        this.topics = topics;
        this.cluster = cluster;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.METADATA, 13, (KafkaHandler<MetadataRequestData>) (c, v, r) -> done(metadata(c, v, r)))
                .serve(ApiKeys.DESCRIBE_CLUSTER, 2, (KafkaHandler<DescribeClusterRequestData>) (c, v, r) ->
                        done(describeCluster(r)))
                .serve(ApiKeys.CREATE_TOPICS, 7, (KafkaHandler<CreateTopicsRequestData>) (c, v, r) ->
                        done(createTopics(c, r)))
                .serve(ApiKeys.DELETE_TOPICS, 6, (KafkaHandler<DeleteTopicsRequestData>) (c, v, r) ->
                        done(deleteTopics(c, r)))
                .serve(ApiKeys.FIND_COORDINATOR, 6, (KafkaHandler<FindCoordinatorRequestData>) (c, v, r) ->
                        done(findCoordinator(v, r)));
    }

    static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }

    static UUID tenant(KafkaCaller caller) {
        return UUID.fromString(caller.tenant());
    }

    /** A topic's id is its queue's id. */
    static Uuid topicId(KafkaStore.Topic t) {
        return new Uuid(t.id().getMostSignificantBits(), t.id().getLeastSignificantBits());
    }

    MetadataResponseData metadata(KafkaCaller caller, short version, MetadataRequestData request) throws Exception {
        UUID tenant = tenant(caller);
        ClusterView view = cluster.view();
        MetadataResponseData out = new MetadataResponseData().setClusterId(CLUSTER_ID)
                .setControllerId(view.controllerId());
        for (KafkaNode n : view.nodes()) {
            out.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(n.id()).setHost(n.host())
                    .setPort(n.port()).setRack(n.rack()));
        }
        boolean all = request.topics() == null || (version == 0 && request.topics().isEmpty());
        if (all) {
            for (KafkaStore.Topic t : topics.all(tenant).values()) {
                out.topics().add(topic(view, t));
            }
            return out;
        }
        List<String> names = new ArrayList<>();
        for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
            if (!byId(t)) {
                names.add(t.name());
            }
        }
        Map<String, KafkaStore.Topic> found = topics.lookup(tenant, names, version < 4 || request.allowAutoTopicCreation());
        // topics named by id only (v10+): a KIP-848 consumer learns the names of what the broker assigned it so
        Map<Uuid, KafkaStore.Topic> ids = null;
        for (MetadataRequestData.MetadataRequestTopic rt : request.topics()) {
            if (byId(rt)) {
                if (ids == null) {
                    ids = new HashMap<>();
                    for (KafkaStore.Topic t : topics.all(tenant).values()) {
                        ids.put(topicId(t), t);
                    }
                }
                KafkaStore.Topic t = ids.get(rt.topicId());
                out.topics().add(t != null ? topic(view, t) : new MetadataResponseTopic().setTopicId(rt.topicId())
                        .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                continue;
            }
            KafkaStore.Topic t = found.get(rt.name());
            if (t != null) {
                out.topics().add(topic(view, t));
            } else {
                Errors e = Topics.valid(rt.name()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
                out.topics().add(new MetadataResponseTopic().setName(rt.name()).setErrorCode(e.code()));
            }
        }
        return out;
    }

    /**
     * The live brokers as Metadata lists them, with the same controller. A broker is a broker endpoint only: a
     * request for another endpoint type is answered as Apache Kafka's brokers answer it. No broker is listed as
     * fenced (a broker out of the live set is not listed at all); cluster authorized operations are not reported.
     */
    DescribeClusterResponseData describeCluster(DescribeClusterRequestData request) {
        DescribeClusterResponseData out = new DescribeClusterResponseData().setEndpointType(EndpointType.BROKER.id());
        EndpointType asked = EndpointType.fromId(request.endpointType());
        if (asked == EndpointType.UNKNOWN) {
            return out.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("Unsupported endpoint type " + request.endpointType());
        }
        if (asked != EndpointType.BROKER) {
            return out.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code()).setErrorMessage(
                    "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type " + asked);
        }
        ClusterView view = cluster.view();
        out.setClusterId(CLUSTER_ID).setControllerId(view.controllerId());
        for (KafkaNode n : view.nodes()) {
            out.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(n.id())
                    .setHost(n.host()).setPort(n.port()).setRack(n.rack()));
        }
        return out;
    }

    /** A topic asked for by id: no name (the Java client sends an empty one) and an id. */
    private static boolean byId(MetadataRequestData.MetadataRequestTopic t) {
        return (t.name() == null || t.name().isEmpty()) && t.topicId() != null && !Uuid.ZERO_UUID.equals(t.topicId());
    }

    private static MetadataResponseTopic topic(ClusterView view, KafkaStore.Topic t) {
        MetadataResponseTopic mt = new MetadataResponseTopic().setName(t.name()).setTopicId(topicId(t))
                .setErrorCode(Errors.NONE.code());
        for (int p = 0; p < t.partitions(); p++) {
            int leader = view.leader(t.name(), p).id();
            mt.partitions().add(new MetadataResponsePartition().setPartitionIndex(p).setLeaderId(leader)
                    .setLeaderEpoch(0).setReplicaNodes(List.of(leader)).setIsrNodes(List.of(leader)));
        }
        return mt;
    }

    /**
     * Each topic is answered for itself, with Apache Kafka's (KRaft controller's) error: a topic named twice in the
     * request INVALID_REQUEST for each mention, an illegal name INVALID_TOPIC_EXCEPTION, a replication factor of 0
     * or below -1 INVALID_REPLICATION_FACTOR (any other is ignored), a partition count below 1 or above
     * {@link Topics#MAX_PARTITIONS} INVALID_PARTITIONS, a bad config INVALID_CONFIG. The others are created.
     */
    CreateTopicsResponseData createTopics(KafkaCaller caller, CreateTopicsRequestData request) throws Exception {
        UUID tenant = tenant(caller);
        Map<String, Integer> mentions = new HashMap<>();
        for (CreateTopicsRequestData.CreatableTopic ct : request.topics()) {
            mentions.merge(String.valueOf(ct.name()), 1, Integer::sum);
        }
        CreateTopicsResponseData out = new CreateTopicsResponseData();
        for (CreateTopicsRequestData.CreatableTopic ct : request.topics()) {
            CreatableTopicResult r = new CreatableTopicResult().setName(ct.name());
            out.topics().add(r);
            try {
                if (mentions.get(String.valueOf(ct.name())) > 1) {
                    throw new InvalidRequestException("Duplicate topic name.");
                }
                Topics.validate(ct.name());
                int partitions = ct.numPartitions() == -1 ? topics.defaultPartitions() : ct.numPartitions();
                if (!ct.assignments().isEmpty()) {
                    partitions = ct.assignments().size();
                } else if (ct.replicationFactor() == 0 || ct.replicationFactor() < -1) {
                    throw new InvalidReplicationFactorException(
                            "Replication factor must be larger than 0, or -1 to use the default value.");
                }
                if (partitions < 1) {
                    throw new InvalidPartitionsException("the number of partitions must be at least 1");
                }
                if (partitions > Topics.MAX_PARTITIONS) {
                    // Metadata lists every partition of a topic: a count in the billions would exhaust the heap
                    throw new InvalidPartitionsException("A topic has at most " + Topics.MAX_PARTITIONS
                            + " partitions.");
                }
                TopicConfigs.Requested configs = TopicConfigs.requested(ct.configs());
                if (!request.validateOnly() && !topics.create(tenant, ct.name(), partitions, configs)) {
                    r.setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code())
                            .setErrorMessage("Topic '" + ct.name() + "' already exists.");
                    continue;
                }
                r.setNumPartitions(partitions).setReplicationFactor((short) 1);
                if (!request.validateOnly()) {
                    KafkaStore.Topic t = topics.lookup(tenant, List.of(ct.name()), false).get(ct.name());
                    if (t != null) {
                        r.setTopicId(topicId(t));
                    }
                }
            } catch (ApiException e) {
                // this topic's answer only: the request's other topics go on (and those before stay created)
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return out;
    }

    DeleteTopicsResponseData deleteTopics(KafkaCaller caller, DeleteTopicsRequestData request) throws Exception {
        UUID tenant = tenant(caller);
        DeleteTopicsResponseData out = new DeleteTopicsResponseData();
        List<String> names = new ArrayList<>(request.topicNames());
        List<Uuid> ids = new ArrayList<>();
        for (DeleteTopicsRequestData.DeleteTopicState s : request.topics()) {
            if (s.name() != null) {
                names.add(s.name());
            } else {
                ids.add(s.topicId());
            }
        }
        if (!ids.isEmpty()) {
            Map<String, KafkaStore.Topic> all = topics.all(tenant);
            for (Uuid id : ids) {
                KafkaStore.Topic t = all.values().stream().filter(x -> topicId(x).equals(id)).findFirst().orElse(null);
                if (t == null) {
                    out.responses().add(new DeletableTopicResult().setTopicId(id)
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                } else {
                    topics.delete(tenant, t.name());
                    out.responses().add(new DeletableTopicResult().setName(t.name()).setTopicId(id));
                }
            }
        }
        for (String name : names) {
            DeletableTopicResult r = new DeletableTopicResult().setName(name);
            if (!Topics.valid(name) || !topics.delete(tenant, name)) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            out.responses().add(r);
        }
        return out;
    }

    /**
     * One coordinator per key (v4+: several keys per request), chosen by {@link ClusterView#coordinator}: the
     * broker every other broker would name for the same key. Group and transaction keys are served; any other key
     * type is answered INVALID_REQUEST.
     */
    FindCoordinatorResponseData findCoordinator(short version, FindCoordinatorRequestData request) {
        ClusterView view = cluster.view();
        FindCoordinatorResponseData out = new FindCoordinatorResponseData();
        ClusterView.KeyType type = keyType(version == 0 ? 0 : request.keyType());
        if (version < 4) {
            if (type == null) {
                return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("unknown key type")
                        .setNodeId(-1).setHost("").setPort(-1);
            }
            KafkaNode n = view.coordinator(type, request.key());
            return out.setNodeId(n.id()).setHost(n.host()).setPort(n.port());
        }
        for (String key : request.coordinatorKeys()) {
            FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setKey(key);
            if (type == null) {
                c.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("unknown key type").setNodeId(-1)
                        .setHost("").setPort(-1);
            } else {
                KafkaNode n = view.coordinator(type, key);
                c.setNodeId(n.id()).setHost(n.host()).setPort(n.port());
            }
            out.coordinators().add(c);
        }
        return out;
    }

    private static ClusterView.KeyType keyType(byte code) {
        return switch (code) {
            case 0 -> ClusterView.KeyType.GROUP;
            case 1 -> ClusterView.KeyType.TRANSACTION;
            default -> null;
        };
    }
}
