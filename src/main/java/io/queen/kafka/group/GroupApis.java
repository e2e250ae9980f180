package io.queen.kafka.group;

import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaBatchHandler;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The group APIs in the Kafka listener's dispatch table, served by {@link GroupCoordinator}. OffsetCommit and
 * OffsetFetch stop at version 9: version 10 names topics by id only. ConsumerGroupHeartbeat and ConsumerGroupDescribe
 * serve the consumer protocol (KIP-848) up to version 1, which the 4.x clients send. Stateless, thread-safe.
 */
@ApplicationScoped
class GroupApis implements KafkaApiProvider {
    private final GroupCoordinator coordinator;

    GroupApis(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.JOIN_GROUP, 9, (KafkaHandler<JoinGroupRequestData>) coordinator::joinGroup)
                .serve(ApiKeys.SYNC_GROUP, 5, (KafkaHandler<SyncGroupRequestData>) coordinator::syncGroup)
                .serve(ApiKeys.HEARTBEAT, 4, (KafkaHandler<HeartbeatRequestData>) coordinator::heartbeat)
                .serve(ApiKeys.LEAVE_GROUP, 5, (KafkaHandler<LeaveGroupRequestData>) coordinator::leaveGroup)
                // one connection's commits in request order, as Apache Kafka serves them: a consumer pipelines its
                // asynchronous commits, and run at once they deadlock in PostgreSQL or an earlier one lands last;
                // those that queued up behind a running one are written together
                .serveCoalesced(ApiKeys.OFFSET_COMMIT, 9,
                        (KafkaBatchHandler<OffsetCommitRequestData>) coordinator::offsetCommits)
                .serve(ApiKeys.OFFSET_FETCH, 9, (KafkaHandler<OffsetFetchRequestData>) coordinator::offsetFetch)
                .serve(ApiKeys.LIST_GROUPS, 5, (KafkaHandler<ListGroupsRequestData>) coordinator::listGroups)
                .serve(ApiKeys.DESCRIBE_GROUPS, 6,
                        (KafkaHandler<DescribeGroupsRequestData>) coordinator::describeGroups)
                .serve(ApiKeys.DELETE_GROUPS, 2, (KafkaHandler<DeleteGroupsRequestData>) coordinator::deleteGroups)
                .serve(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1,
                        (KafkaHandler<ConsumerGroupHeartbeatRequestData>) coordinator::consumerGroupHeartbeat)
                .serve(ApiKeys.CONSUMER_GROUP_DESCRIBE, 1,
                        (KafkaHandler<ConsumerGroupDescribeRequestData>) coordinator::consumerGroupDescribe);
    }
}
