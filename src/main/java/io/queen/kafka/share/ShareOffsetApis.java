package io.queen.kafka.share;

import io.queen.auth.Tenants;
import io.queen.kafka.CoordinatorSql;
import io.queen.kafka.group.GroupCoordinator;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A share group's offsets: DescribeShareGroupOffsets (any broker: they are cursors), AlterShareGroupOffsets and
 * DeleteShareGroupOffsets (the group's coordinator, while the group has no members, as Apache Kafka requires).
 * Stateless, thread-safe.
 */
@ApplicationScoped
class ShareOffsetApis implements KafkaApiProvider {
    private final ShareStore store;
    private final ShareGroups groups;

    ShareOffsetApis(ShareStore store, ShareGroups groups) {
        this.store = store;
        this.groups = groups;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, 1,
                        (KafkaHandler<DescribeShareGroupOffsetsRequestData>) (c, v, r) ->
                                CompletableFuture.completedFuture(describe(c, v, r)))
                .serve(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, 0,
                        (KafkaHandler<AlterShareGroupOffsetsRequestData>) (c, v, r) ->
                                CompletableFuture.completedFuture(alter(c, r)))
                .serve(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, 0,
                        (KafkaHandler<DeleteShareGroupOffsetsRequestData>) (c, v, r) ->
                                CompletableFuture.completedFuture(delete(c, r)));
    }

    private static Uuid uuid(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    DescribeShareGroupOffsetsResponseData describe(KafkaCaller caller, short version,
            DescribeShareGroupOffsetsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        DescribeShareGroupOffsetsResponseData out = new DescribeShareGroupOffsetsResponseData();
        for (DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup g : request.groups()) {
            DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup rg =
                    new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                            .setGroupId(g.groupId());
            out.groups().add(rg);
            if (!GroupCoordinator.validGroupId(g.groupId())) {
                rg.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage("invalid group id");
                continue;
            }
            List<String> topics = g.topics() == null ? null
                    : g.topics().stream().map(DescribeShareGroupOffsetsRequestData
                            .DescribeShareGroupOffsetsRequestTopic::topicName).toList();
            Map<String, Map<Integer, ShareStore.Offset>> found = new LinkedHashMap<>();
            Map<String, UUID> ids = new LinkedHashMap<>();
            for (ShareStore.Offset o : CoordinatorSql.retriable("share group offsets",
                    () -> store.offsets(tenant, g.groupId(), topics))) {
                found.computeIfAbsent(o.topic(), k -> new LinkedHashMap<>()).put(o.partition(), o);
                ids.put(o.topic(), o.topicId());
            }
            Map<String, List<Integer>> asked = new LinkedHashMap<>();
            if (g.topics() == null) {
                found.forEach((t, parts) -> asked.put(t, new ArrayList<>(parts.keySet())));
            } else {
                g.topics().forEach(t -> asked.put(t.topicName(), t.partitions()));
            }
            asked.forEach((topic, parts) -> {
                DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic rt =
                        new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                                .setTopicName(topic).setTopicId(ids.containsKey(topic) ? uuid(ids.get(topic))
                                        : Uuid.ZERO_UUID);
                rg.topics().add(rt);
                Map<Integer, ShareStore.Offset> have = found.getOrDefault(topic, Map.of());
                for (int p : parts) {
                    ShareStore.Offset o = have.get(p);
                    DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition rp =
                            new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
                                    .setPartitionIndex(p).setLeaderEpoch(-1)
                                    .setStartOffset(o == null ? -1 : o.startOffset());
                    if (version >= 1) {
                        rp.setLag(o == null ? -1 : o.lag());
                    }
                    rt.partitions().add(rp);
                }
            });
        }
        return out;
    }

    /** NONE when the group's offsets may change here: its coordinator, no members. */
    private Errors mayChange(UUID tenant, String group) {
        if (!GroupCoordinator.validGroupId(group)) {
            return Errors.INVALID_GROUP_ID;
        }
        if (!groups.coordinates(group)) {
            return Errors.NOT_COORDINATOR;
        }
        return groups.isShareGroup(tenant, group) ? Errors.NON_EMPTY_GROUP : Errors.NONE;
    }

    AlterShareGroupOffsetsResponseData alter(KafkaCaller caller, AlterShareGroupOffsetsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        AlterShareGroupOffsetsResponseData out = new AlterShareGroupOffsetsResponseData();
        Errors e = mayChange(tenant, request.groupId());
        if (e != Errors.NONE) {
            return out.setErrorCode(e.code()).setErrorMessage(e.message());
        }
        for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic t : request.topics()) {
            AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic rt =
                    new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                            .setTopicName(t.topicName());
            out.responses().add(rt);
            for (AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition p : t.partitions()) {
                boolean ok = p.startOffset() >= 0 && CoordinatorSql.retriable("share group offsets",
                        () -> store.setStart(tenant, request.groupId(), t.topicName(), p.partitionIndex(),
                                p.startOffset()));
                rt.partitions().add(new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode((ok ? Errors.NONE
                                : p.startOffset() < 0 ? Errors.INVALID_REQUEST : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                                .code()));
            }
        }
        return out;
    }

    DeleteShareGroupOffsetsResponseData delete(KafkaCaller caller, DeleteShareGroupOffsetsRequestData request) {
        UUID tenant = Tenants.of(caller.tenant());
        DeleteShareGroupOffsetsResponseData out = new DeleteShareGroupOffsetsResponseData();
        Errors e = mayChange(tenant, request.groupId());
        if (e != Errors.NONE) {
            return out.setErrorCode(e.code()).setErrorMessage(e.message());
        }
        for (DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic t : request.topics()) {
            boolean ok = CoordinatorSql.retriable("share group offsets",
                    () -> store.deleteOffsets(tenant, request.groupId(), t.topicName()));
            out.responses().add(new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                    .setTopicName(t.topicName())
                    .setErrorCode((ok ? Errors.NONE : Errors.UNKNOWN_TOPIC_OR_PARTITION).code()));
        }
        return out;
    }
}
