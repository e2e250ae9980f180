package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaFrames;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.FreshDatabase;
import java.net.Socket;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The consumer protocol's answers on the wire, request by request: malformed heartbeats, unknown assignors and
 * members, one namespace of group ids between the two protocols, the group types ListGroups and DescribeGroups
 * answer, and OffsetCommit / OffsetFetch checked against the member's epoch.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaConsumerProtocolWireTest extends KafkaListenerClients {
    private int correlation;

    @SuppressWarnings("unchecked")
    <R extends ApiMessage> R call(Socket s, ApiKeys key, int version, ApiMessage body) throws Exception {
        return (R) KafkaFrames.call(s, key, (short) version, ++correlation, body);
    }

    ConsumerGroupHeartbeatResponseData heartbeat(Socket s, ConsumerGroupHeartbeatRequestData r) throws Exception {
        return call(s, ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1, r);
    }

    static ConsumerGroupHeartbeatRequestData join(String group, String member, String topic) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(topic)).setTopicPartitions(List.of());
    }

    void topic(String name) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, 2, (short) 1))).all().get();
        }
    }

    @Test
    void malformedHeartbeatsUnknownAssignorsAndUnknownMembersAreKafkaErrors() throws Exception {
        topic("w-errors");
        try (Socket s = KafkaFrames.connect(listener.port())) {
            assertEquals(Errors.UNSUPPORTED_ASSIGNOR.code(),
                    heartbeat(s, join("w-e", "m1", "w-errors").setServerAssignor("sticky")).errorCode());
            assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(s, join("w-e", "", "w-errors")).errorCode(),
                    "version 1: the client names its member id");
            assertEquals(Errors.INVALID_REQUEST.code(),
                    heartbeat(s, join("w-e", "m1", "w-errors").setSubscribedTopicNames(null)).errorCode());
            assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), heartbeat(s, join("w-e", "m1", "w-errors")
                    .setSubscribedTopicNames(null).setSubscribedTopicRegex("w-(")).errorCode());
            assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), heartbeat(s, join("w-e", "m1", "w-errors")
                    .setSubscribedTopicNames(null).setSubscribedTopicRegex("(w)\\1")).errorCode(),
                    "RE2 has no back-references");
            ConsumerGroupHeartbeatResponseData ok = heartbeat(s, join("w-e", "m1", "w-errors").setServerAssignor(
                    "range"));
            assertEquals(Errors.NONE.code(), ok.errorCode());
            assertEquals(1, ok.memberEpoch());
            assertEquals(300, ok.heartbeatIntervalMs());
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), heartbeat(s, new ConsumerGroupHeartbeatRequestData()
                    .setGroupId("w-e").setMemberId("m2").setMemberEpoch(1)).errorCode());
            assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), heartbeat(s, new ConsumerGroupHeartbeatRequestData()
                    .setGroupId("w-e").setMemberId("m1").setMemberEpoch(5)).errorCode());

            ConsumerGroupDescribeResponseData d = call(s, ApiKeys.CONSUMER_GROUP_DESCRIBE, 1,
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("w-e", "w-none")));
            ConsumerGroupDescribeResponseData.DescribedGroup g = d.groups().get(0);
            assertEquals("Stable", g.groupState());
            assertEquals("range", g.assignorName());
            assertEquals(1, g.groupEpoch());
            assertEquals("w-errors", g.members().get(0).assignment().topicPartitions().get(0).topicName());
            assertEquals(List.of(0, 1), g.members().get(0).assignment().topicPartitions().get(0).partitions());
            assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), d.groups().get(1).errorCode());

            ConsumerGroupHeartbeatResponseData left = heartbeat(s, new ConsumerGroupHeartbeatRequestData()
                    .setGroupId("w-e").setMemberId("m1").setMemberEpoch(-1));
            assertEquals(-1, left.memberEpoch());
            assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), ((ConsumerGroupDescribeResponseData) call(s,
                    ApiKeys.CONSUMER_GROUP_DESCRIBE, 1, new ConsumerGroupDescribeRequestData()
                            .setGroupIds(List.of("w-e")))).groups().get(0).errorCode(), "no member left");
        }
    }

    @Test
    void aGroupIdIsOneNamespaceAndListAndDescribeAnswerEachGroupsType() throws Exception {
        topic("w-ns");
        try (Socket s = KafkaFrames.connect(listener.port())) {
            assertEquals(Errors.NONE.code(), heartbeat(s, join("w-new", "m1", "w-ns")).errorCode());
            JoinGroupRequestData classic = new JoinGroupRequestData().setGroupId("w-new").setMemberId("")
                    .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocolType("consumer")
                    .setProtocols(new JoinGroupRequestProtocolCollection(List.of(
                            new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0])).iterator()));
            JoinGroupResponseData j = call(s, ApiKeys.JOIN_GROUP, 9, classic);
            assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), j.errorCode());

            // a classic group with a member: the consumer protocol cannot use its id
            classic.setGroupId("w-old");
            j = call(s, ApiKeys.JOIN_GROUP, 9, classic.duplicate());
            assertEquals(Errors.MEMBER_ID_REQUIRED.code(), j.errorCode());
            j = call(s, ApiKeys.JOIN_GROUP, 9, classic.duplicate().setMemberId(j.memberId()));
            assertEquals(Errors.NONE.code(), j.errorCode());
            ConsumerGroupHeartbeatResponseData h = heartbeat(s, join("w-old", "m1", "w-ns"));
            assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), h.errorCode());

            ListGroupsResponseData consumers = call(s, ApiKeys.LIST_GROUPS, 5,
                    new ListGroupsRequestData().setTypesFilter(List.of("consumer")));
            ListGroupsResponseData.ListedGroup listed = consumers.groups().stream()
                    .filter(g -> g.groupId().equals("w-new")).findFirst().orElseThrow();
            assertEquals("consumer", listed.groupType());
            assertEquals("consumer", listed.protocolType());
            assertEquals("Stable", listed.groupState());
            assertEquals(List.of(), consumers.groups().stream().filter(g -> g.groupId().equals("w-old")).toList());
            ListGroupsResponseData classics = call(s, ApiKeys.LIST_GROUPS, 5,
                    new ListGroupsRequestData().setTypesFilter(List.of("classic")));
            assertEquals(List.of("w-old"), classics.groups().stream().map(g -> g.groupId())
                    .filter(id -> id.startsWith("w-")).toList());

            DescribeGroupsResponseData dg = call(s, ApiKeys.DESCRIBE_GROUPS, 6,
                    new DescribeGroupsRequestData().setGroups(List.of("w-new")));
            assertEquals("Dead", dg.groups().get(0).groupState());
            assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), dg.groups().get(0).errorCode());
        }
    }

    @Test
    void offsetCommitAndFetchOfAMemberAreCheckedAgainstItsEpoch() throws Exception {
        topic("w-off");
        try (Socket s = KafkaFrames.connect(listener.port())) {
            assertEquals(1, heartbeat(s, join("w-o", "m1", "w-off")).memberEpoch());
            assertEquals(List.of(Errors.STALE_MEMBER_EPOCH.code(), Errors.STALE_MEMBER_EPOCH.code()),
                    GroupCoordinatorTest.errors(call(s, ApiKeys.OFFSET_COMMIT, 9,
                            GroupCoordinatorTest.commit("w-o", 3, "m1", "w-off", 1, 1))));
            assertEquals(List.of(Errors.UNKNOWN_MEMBER_ID.code(), Errors.UNKNOWN_MEMBER_ID.code()),
                    GroupCoordinatorTest.errors(call(s, ApiKeys.OFFSET_COMMIT, 9,
                            GroupCoordinatorTest.commit("w-o", 1, "m9", "w-off", 1, 1))));
            OffsetCommitResponseData ok = call(s, ApiKeys.OFFSET_COMMIT, 9,
                    GroupCoordinatorTest.commit("w-o", 1, "m1", "w-off", 0, 0));
            assertEquals(List.of(Errors.NONE.code(), Errors.NONE.code()), GroupCoordinatorTest.errors(ok));

            OffsetFetchRequestGroup g = new OffsetFetchRequestGroup().setGroupId("w-o").setMemberId("m1")
                    .setMemberEpoch(4).setTopics(List.of(new OffsetFetchRequestTopics().setName("w-off")
                            .setPartitionIndexes(List.of(0, 1))));
            OffsetFetchResponseData stale = call(s, ApiKeys.OFFSET_FETCH, 9,
                    new OffsetFetchRequestData().setGroups(List.of(g)));
            assertEquals(Errors.STALE_MEMBER_EPOCH.code(), stale.groups().get(0).errorCode());
            OffsetFetchResponseData fetched = call(s, ApiKeys.OFFSET_FETCH, 9,
                    new OffsetFetchRequestData().setGroups(List.of(g.duplicate().setMemberEpoch(1))));
            assertEquals(Errors.NONE.code(), fetched.groups().get(0).errorCode());
            assertEquals(0L, fetched.groups().get(0).topics().get(0).partitions().get(0).committedOffset());
        }
    }
}
