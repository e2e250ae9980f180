package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.Test;

/**
 * The listener's framing and dispatch, driven over a raw socket: requests pipelined on one connection are answered
 * in order (OffsetCommits also take effect in order); what is not served gets an error code, not a dropped
 * connection; an oversized or unreadable frame closes only its own connection.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaFramingTest {
    @Inject
    KafkaListener listener;

    static byte[] request(ApiKeys key, short version, int correlationId, ApiMessage body) {
        return KafkaFrames.request(key, version, correlationId, body);
    }

    static ByteBuffer response(DataInputStream in, int correlationId, short headerVersion) throws IOException {
        return KafkaFrames.response(in, correlationId, headerVersion);
    }

    Socket connect() throws IOException {
        return KafkaFrames.connect(listener.port());
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (Socket s = connect()) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            for (int i = 0; i < 20; i++) {
                out.write(request(ApiKeys.API_VERSIONS, (short) 3, 100 + i,
                        new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1")));
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int i = 0; i < 20; i++) {
                ApiVersionsResponseData r = new ApiVersionsResponseData(
                        new ByteBufferAccessor(response(in, 100 + i, (short) 0)), (short) 3);
                assertEquals(Errors.NONE.code(), r.errorCode());
                assertTrue(r.apiKeys().find(ApiKeys.API_VERSIONS.id) != null);
            }
        }
    }

    /**
     * OffsetCommits pipelined on one connection take effect one after the other in request order, as Apache Kafka
     * serves them (a consumer's asynchronous commits): the last one's offsets stay and none fails. Run at once,
     * commits of one group deadlocked each other in PostgreSQL (answered COORDINATOR_NOT_AVAILABLE) and an earlier
     * one could land after a later one.
     */
    @Test
    void pipelinedOffsetCommitsTakeEffectInRequestOrder() throws Exception {
        int partitions = 16, commits = 40;
        String topic = "pipelined-commits";
        try (Socket s = connect()) {
            var topics = new CreateTopicsRequestData.CreatableTopicCollection();
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName(topic).setNumPartitions(partitions)
                    .setReplicationFactor((short) -1));
            CreateTopicsResponseData created = KafkaFrames.call(s, ApiKeys.CREATE_TOPICS,
                    ApiKeys.CREATE_TOPICS.latestVersion(), 1, new CreateTopicsRequestData().setTopics(topics)
                            .setTimeoutMs(30_000));
            assertEquals(Errors.NONE.code(), created.topics().find(topic).errorCode());
            short v = 8;
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            for (int i = 0; i < commits; i++) {
                List<OffsetCommitRequestPartition> ps = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    ps.add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(i));
                }
                out.write(request(ApiKeys.OFFSET_COMMIT, v, 10 + i, new OffsetCommitRequestData()
                        .setGroupId("pipelined").setGenerationIdOrMemberEpoch(-1).setMemberId("")
                        .setTopics(List.of(new OffsetCommitRequestTopic().setName(topic).setPartitions(ps)))));
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int i = 0; i < commits; i++) {
                OffsetCommitResponseData r = (OffsetCommitResponseData) AbstractResponse.parseResponse(
                        ApiKeys.OFFSET_COMMIT, new ByteBufferAccessor(response(in, 10 + i,
                                ApiKeys.OFFSET_COMMIT.responseHeaderVersion(v))), v).data();
                int commit = i;
                r.topics().forEach(t -> t.partitions().forEach(p -> assertEquals(Errors.NONE.code(), p.errorCode(),
                        "commit " + commit + ", partition " + p.partitionIndex())));
            }
            OffsetFetchResponseData fetched = KafkaFrames.call(s, ApiKeys.OFFSET_FETCH, (short) 7, 100,
                    new OffsetFetchRequestData().setGroupId("pipelined").setTopics(List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(topic)
                                    .setPartitionIndexes(IntStream.range(0, partitions).boxed().toList()))));
            fetched.topics().get(0).partitions().forEach(p -> assertEquals(commits - 1, p.committedOffset(),
                    "partition " + p.partitionIndex()));
        }
    }

    @Test
    void anApiVersionsOfAnUnknownVersionGetsV0WithTheRanges() throws Exception {
        try (Socket s = connect()) {
            byte[] req = request(ApiKeys.API_VERSIONS, (short) 3, 7,
                    new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
            ByteBuffer.wrap(req).putShort(6, (short) 99);  // the version field, after size and key
            s.getOutputStream().write(req);
            ApiVersionsResponseData r = new ApiVersionsResponseData(new ByteBufferAccessor(
                    response(new DataInputStream(s.getInputStream()), 7, (short) 0)), (short) 0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), r.errorCode());
            assertEquals(4, r.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion());
        }
    }

    @Test
    void anApiNotServedGetsUnsupportedVersionAndTheConnectionStays() throws Exception {
        try (Socket s = connect()) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            short v = ApiKeys.DESCRIBE_ACLS.latestVersion();
            DescribeAclsResponseData r = KafkaFrames.call(s, ApiKeys.DESCRIBE_ACLS, v, 1, new DescribeAclsRequestData()
                    .setResourceTypeFilter((byte) 1).setPatternTypeFilter((byte) 1).setOperation((byte) 1)
                    .setPermissionType((byte) 1));
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), r.errorCode());
            // an API key no Kafka version has: ApiVersions v0 with UNSUPPORTED_VERSION
            byte[] unknown = request(ApiKeys.API_VERSIONS, (short) 0, 2, new ApiVersionsRequestData());
            ByteBuffer.wrap(unknown).putShort(4, (short) 9999);
            out.write(unknown);
            ApiVersionsResponseData u = new ApiVersionsResponseData(new ByteBufferAccessor(response(in, 2, (short) 0)),
                    (short) 0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), u.errorCode());
            // still open
            out.write(request(ApiKeys.API_VERSIONS, (short) 0, 3, new ApiVersionsRequestData()));
            assertEquals(Errors.NONE.code(), new ApiVersionsResponseData(new ByteBufferAccessor(
                    response(in, 3, (short) 0)), (short) 0).errorCode());
        }
    }

    /**
     * DeleteRecords answers each partition for itself: an unknown or invalid topic, a partition beyond the
     * topic's count or below 0 and an offset below -1 or beyond the high watermark get their error code, the
     * request's valid partition is served. A cleanup.policy that is neither delete nor compact is INVALID_CONFIG,
     * its message free of the client's bytes.
     */
    @Test
    void deleteRecordsAndCleanupPolicyAnswerBadInputPerPartition() throws Exception {
        try (Socket s = connect()) {
            short cv = ApiKeys.CREATE_TOPICS.latestVersion();
            CreateTopicsRequestData.CreatableTopicConfigCollection bad =
                    new CreateTopicsRequestData.CreatableTopicConfigCollection();
            bad.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy")
                    .setValue("compact,\u0007shrink"));
            CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName("dr-raw").setNumPartitions(2)
                    .setReplicationFactor((short) -1));
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName("dr-bad-policy").setNumPartitions(1)
                    .setReplicationFactor((short) -1).setConfigs(bad));
            CreateTopicsResponseData created = KafkaFrames.call(s, ApiKeys.CREATE_TOPICS, cv, 1,
                    new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000));
            assertEquals(Errors.NONE.code(), created.topics().find("dr-raw").errorCode());
            CreateTopicsResponseData.CreatableTopicResult refused = created.topics().find("dr-bad-policy");
            assertEquals(Errors.INVALID_CONFIG.code(), refused.errorCode());
            assertTrue(refused.errorMessage().chars().noneMatch(Character::isISOControl), refused.errorMessage());

            short v = ApiKeys.DELETE_RECORDS.latestVersion();
            DeleteRecordsRequestData req = new DeleteRecordsRequestData().setTimeoutMs(30_000);
            req.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("dr-raw").setPartitions(List.of(
                    new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0),
                    new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(1).setOffset(-5),
                    new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(2).setOffset(0),
                    new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(-1).setOffset(0))));
            req.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("dr-missing").setPartitions(
                    List.of(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(3))));
            req.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("bad name\u0000").setPartitions(
                    List.of(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0))));
            DeleteRecordsResponseData r = KafkaFrames.call(s, ApiKeys.DELETE_RECORDS, v, 2, req);
            DeleteRecordsResponseData.DeleteRecordsTopicResult raw = r.topics().find("dr-raw");
            assertEquals(Errors.NONE.code(), raw.partitions().find(0).errorCode());
            assertEquals(0L, raw.partitions().find(0).lowWatermark(), "nothing written: log start 0");
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), raw.partitions().find(1).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), raw.partitions().find(2).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), raw.partitions().find(-1).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    r.topics().find("dr-missing").partitions().find(0).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    r.topics().find("bad name\u0000").partitions().find(0).errorCode());
            // an offset beyond the high watermark of a partition never written
            DeleteRecordsRequestData beyond = new DeleteRecordsRequestData().setTimeoutMs(30_000);
            beyond.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("dr-raw").setPartitions(
                    List.of(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(1).setOffset(1))));
            DeleteRecordsResponseData after = KafkaFrames.call(s, ApiKeys.DELETE_RECORDS, v, 3, beyond);
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), after.topics().find("dr-raw").partitions().find(1)
                    .errorCode());
        }
    }

    @Test
    void anOversizedOrUnreadableFrameClosesOnlyItsConnection() throws Exception {
        try (Socket healthy = connect(); Socket big = connect(); Socket garbage = connect()) {
            DataOutputStream b = new DataOutputStream(big.getOutputStream());
            b.writeInt(2 * 1024 * 1024);  // over the 1M limit of the test profile
            b.write(new byte[1024]);
            b.flush();
            assertClosed(big);
            DataOutputStream g = new DataOutputStream(garbage.getOutputStream());
            byte[] junk = request(ApiKeys.METADATA, (short) 12, 5, new ApiVersionsRequestData());
            ByteBuffer.wrap(junk).putInt(0, 14);  // a Metadata v12 frame cut after its header's first bytes
            g.write(junk, 0, 18);
            g.flush();
            assertClosed(garbage);
            DataOutputStream h = new DataOutputStream(healthy.getOutputStream());
            h.write(request(ApiKeys.API_VERSIONS, (short) 0, 9, new ApiVersionsRequestData()));
            assertEquals(Errors.NONE.code(), new ApiVersionsResponseData(new ByteBufferAccessor(
                    response(new DataInputStream(healthy.getInputStream()), 9, (short) 0)), (short) 0).errorCode());
        }
    }

    static void assertClosed(Socket s) throws IOException {
        try {
            int b = s.getInputStream().read();
            assertEquals(-1, b, "the connection is closed");
        } catch (EOFException | java.net.SocketException e) {
            // reset: closed as well
        }
    }
}
