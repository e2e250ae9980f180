package io.queen.kafka.group;

import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Assignment;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.TopicPartitions;

/** A consumer-protocol group as ConsumerGroupDescribe answers it. Stateless; called under the group's monitor. */
final class ConsumerGroupAnswers {
    /** ConsumerGroupDescribe's member type of a member speaking the consumer protocol. */
    private static final byte CONSUMER_MEMBER = 1;

    private ConsumerGroupAnswers() {
    }

    static DescribedGroup described(ConsumerGroup g, Map<Uuid, String> topicNames) {
        DescribedGroup d = new DescribedGroup().setGroupId(g.key().groupId()).setGroupState(g.state().wire)
                .setGroupEpoch(g.groupEpoch()).setAssignmentEpoch(g.assignmentEpoch())
                .setAssignorName(g.assignorName());
        for (ConsumerMember m : g.members().values()) {
            d.members().add(new Member().setMemberId(m.memberId).setInstanceId(m.instanceId).setRackId(m.rackId)
                    .setMemberEpoch(m.memberEpoch).setClientId(m.clientId).setClientHost(m.clientHost)
                    .setSubscribedTopicNames(new ArrayList<>(m.subscribedNames))
                    .setSubscribedTopicRegex(m.subscribedRegex)
                    .setAssignment(assignment(m.assigned, topicNames))
                    .setTargetAssignment(assignment(g.targetOf(m.memberId), topicNames))
                    .setMemberType(CONSUMER_MEMBER));
        }
        return d;
    }

    private static Assignment assignment(Map<Uuid, Set<Integer>> partitions, Map<Uuid, String> topicNames) {
        Assignment a = new Assignment();
        partitions.forEach((t, ps) -> a.topicPartitions().add(new TopicPartitions().setTopicId(t)
                .setTopicName(topicNames.getOrDefault(t, "")).setPartitions(new ArrayList<>(ps))));
        return a;
    }
}
