package io.queen.kafka;

import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.cluster.KafkaNode;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * CreatePartitions: grows a topic's partition count ({@code queen.kafka_create_partitions_v1}), a queue created over
 * HTTP too. A partition is a name until its first record, so growing writes only the new count; Metadata shows it
 * at once and producers and groups (at their next metadata refresh) use the new partitions. Errors are Apache
 * Kafka's (its KRaft controller's words): INVALID_PARTITIONS for a count that does not grow the topic (naming the
 * current count), UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST for a topic named twice in one request,
 * INVALID_REPLICA_ASSIGNMENT for assignments that do not give one list per new partition or name a broker that is
 * not live. Valid assignments are then ignored: leadership follows the cluster's spread ({@code ClusterView}), as
 * for every partition. Stateless, thread-safe.
 */
@ApplicationScoped
class CreatePartitionsApi implements KafkaApiProvider {
    private static final Logger LOG = Logger.getLogger(CreatePartitionsApi.class);

    private final KafkaStore store;
    private final BrokerRegistry cluster;

    CreatePartitionsApi(KafkaStore store, BrokerRegistry cluster) {
        this.store = store;
        this.cluster = cluster;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.CREATE_PARTITIONS, 3, (KafkaHandler<CreatePartitionsRequestData>) (c, v, r) ->
                TopicApis.done(createPartitions(c, r)));
    }

    CreatePartitionsResponseData createPartitions(KafkaCaller caller, CreatePartitionsRequestData request)
            throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        Map<String, Integer> mentions = new HashMap<>();
        for (CreatePartitionsTopic t : request.topics()) {
            mentions.merge(String.valueOf(t.name()), 1, Integer::sum);
        }
        CreatePartitionsResponseData out = new CreatePartitionsResponseData();
        for (CreatePartitionsTopic t : request.topics()) {
            CreatePartitionsTopicResult r = new CreatePartitionsTopicResult().setName(t.name());
            out.results().add(r);
            if (mentions.get(String.valueOf(t.name())) > 1) {
                refuse(r, Errors.INVALID_REQUEST, "Duplicate topic in request.");
            } else if (!Topics.valid(t.name())) {
                refuse(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
            } else if (t.count() > Topics.MAX_PARTITIONS) {
                refuse(r, Errors.INVALID_PARTITIONS, "A topic has at most " + Topics.MAX_PARTITIONS
                        + " partitions.");
            } else {
                grow(tenant, t, request.validateOnly(), r);
            }
        }
        return out;
    }

    private void grow(UUID tenant, CreatePartitionsTopic t, boolean validateOnly, CreatePartitionsTopicResult r)
            throws Exception {
        // the assignments are checked against the current count: validate first, grow only when they pass
        KafkaStore.Grown now = store.createPartitions(tenant, t.name(), t.count(), true);
        if (now.status().equals("ok")) {
            String wrong = assignmentError(t.assignments(), t.count() - now.current());
            if (wrong != null) {
                refuse(r, Errors.INVALID_REPLICA_ASSIGNMENT, wrong);
                return;
            }
            if (validateOnly) {
                return;
            }
            // another grow of the topic may get there in between: then this one is answered as if it came after
            now = store.createPartitions(tenant, t.name(), t.count(), false);
        }
        switch (now.status()) {
            case "ok" -> LOG.infof("kafka partitions created: tenant=%s topic=%s partitions=%d->%d", tenant,
                    t.name(), now.current(), t.count());
            case "not_increase" -> refuse(r, Errors.INVALID_PARTITIONS, t.count() == now.current()
                    ? "Topic already has " + now.current() + " partition(s)."
                    : "The topic " + t.name() + " currently has " + now.current() + " partition(s); " + t.count()
                            + " would not be an increase.");
            default -> refuse(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
        }
    }

    /** Why {@code assignments} cannot add {@code added} partitions, in Apache Kafka's words; null when they can. */
    private String assignmentError(List<CreatePartitionsAssignment> assignments, int added) {
        if (assignments == null) {
            return null;
        }
        if (assignments.size() != added) {
            return "Attempted to add " + added + " additional partition(s), but only " + assignments.size()
                    + " assignment(s) were specified.";
        }
        Set<Integer> live = cluster.view().nodes().stream().map(KafkaNode::id).collect(Collectors.toSet());
        for (CreatePartitionsAssignment a : assignments) {
            if (a.brokerIds().isEmpty()) {
                return "The manual partition assignment includes an empty replica list.";
            }
            for (int id : a.brokerIds()) {
                if (!live.contains(id)) {
                    return "The manual partition assignment includes broker " + id
                            + ", but no such broker is registered.";
                }
            }
        }
        return null;
    }

    private static void refuse(CreatePartitionsTopicResult r, Errors error, String message) {
        r.setErrorCode(error.code()).setErrorMessage(message);
    }
}
