package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.testing.FreshDatabase;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Requests a careless or hostile client sends beyond Produce (KafkaHostileProduceTest), with the Java client where it
 * can send them and over a raw socket where it cannot: topic names PostgreSQL cannot hold (a NUL), CreateTopics
 * entries Apache Kafka refuses, a ListOffsets timestamp past any date, negative Fetch offsets and sizes, group members
 * whose ids cannot be stored, an ApiVersions with a bogus client software name, commit metadata longer than Kafka
 * takes, config resources of a type Kafka does not know, group members keeping more than a member may. Each is answered with Kafka's error code for its own entry (or request); the request's other entries are
 * served as if it were not there, and the connection goes on.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaHostileRequestsTest extends KafkaListenerClients {
    /** A name no queue can have: PostgreSQL text holds no U+0000. */
    static final String NUL_NAME = "nul\u0000topic";

    private int correlation;

    Socket connect() throws Exception {
        return KafkaFrames.connect(listener.port());
    }

    <R extends ApiMessage> R call(Socket s, ApiKeys key, int version, ApiMessage body) throws Exception {
        return KafkaFrames.call(s, key, (short) version, ++correlation, body);
    }

    static CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) replicationFactor);
    }

    CreateTopicsResponseData createTopics(Socket s, CreatableTopic... topics) throws Exception {
        CreateTopicsRequestData.CreatableTopicCollection all = new CreateTopicsRequestData.CreatableTopicCollection();
        for (CreatableTopic t : topics) {
            all.mustAdd(t);
        }
        return call(s, ApiKeys.CREATE_TOPICS, 7, new CreateTopicsRequestData().setTopics(all).setTimeoutMs(30_000));
    }

    /** The errors of the answer's entries named {@code name}, in answer order. */
    static List<Errors> errors(CreateTopicsResponseData r, String name) {
        List<Errors> out = new ArrayList<>();
        for (CreatableTopicResult t : r.topics()) {
            if (t.name().equals(name)) {
                out.add(Errors.forCode(t.errorCode()));
            }
        }
        return out;
    }

    /** Metadata of {@code names}, without auto-creation. */
    MetadataResponseData metadata(Socket s, String... names) throws Exception {
        MetadataRequestData r = new MetadataRequestData().setAllowAutoTopicCreation(false);
        for (String n : names) {
            r.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(n));
        }
        return call(s, ApiKeys.METADATA, 12, r);
    }

    static MetadataResponseData.MetadataResponseTopic named(MetadataResponseData m, String name) {
        return m.topics().stream().filter(t -> name.equals(t.name())).findFirst().orElseThrow();
    }

    @Test
    void aTopicNameWithANulIsAnsweredForItselfAndTheRequestsOtherTopicsAreServed() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(createTopics(s, topic("nul-ok", 1, -1)), "nul-ok"));

            ProduceRequestData.TopicProduceDataCollection produced = new ProduceRequestData.TopicProduceDataCollection();
            for (String name : List.of("nul-ok", NUL_NAME)) {
                produced.add(new ProduceRequestData.TopicProduceData().setName(name).setPartitionData(List.of(
                        new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords
                                .withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))))));
            }
            ProduceResponseData p = call(s, ApiKeys.PRODUCE, 9, new ProduceRequestData().setAcks((short) -1)
                    .setTimeoutMs(30_000).setTopicData(produced));
            List<Short> producedErrors = new ArrayList<>();
            p.responses().forEach(t -> producedErrors.add(t.partitionResponses().get(0).errorCode()));
            assertEquals(List.of(Errors.NONE.code(), Errors.INVALID_TOPIC_EXCEPTION.code()), producedErrors);

            MetadataResponseData m = metadata(s, "nul-ok", NUL_NAME);
            assertEquals(Errors.NONE.code(), named(m, "nul-ok").errorCode());
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), named(m, NUL_NAME).errorCode());

            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
                    .setMaxBytes(1 << 20);
            for (String name : List.of("nul-ok", NUL_NAME)) {
                fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(name).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20))));
            }
            FetchResponseData f = call(s, ApiKeys.FETCH, 12, fetch);
            assertEquals(Errors.NONE.code(), f.errorCode());
            assertEquals(Errors.NONE.code(), f.responses().get(0).partitions().get(0).errorCode());
            assertEquals(1, f.responses().get(0).partitions().get(0).highWatermark());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), f.responses().get(1).partitions().get(0).errorCode());

            ListOffsetsRequestData lo = new ListOffsetsRequestData().setReplicaId(-1);
            for (String name : List.of("nul-ok", NUL_NAME)) {
                lo.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(name).setPartitions(List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP))));
            }
            ListOffsetsResponseData l = call(s, ApiKeys.LIST_OFFSETS, 7, lo);
            assertEquals(Errors.NONE.code(), l.topics().get(0).partitions().get(0).errorCode());
            assertEquals(1, l.topics().get(0).partitions().get(0).offset());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), l.topics().get(1).partitions().get(0).errorCode());

            DescribeConfigsRequestData dc = new DescribeConfigsRequestData();
            for (String name : List.of("nul-ok", NUL_NAME)) {
                dc.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(name));
            }
            DescribeConfigsResponseData d = call(s, ApiKeys.DESCRIBE_CONFIGS, 4, dc);
            assertEquals(Errors.NONE.code(), d.results().get(0).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), d.results().get(1).errorCode());

            DescribeProducersRequestData dp = new DescribeProducersRequestData();
            for (String name : List.of("nul-ok", NUL_NAME)) {
                dp.topics().add(new DescribeProducersRequestData.TopicRequest().setName(name)
                        .setPartitionIndexes(List.of(0)));
            }
            DescribeProducersResponseData pr = call(s, ApiKeys.DESCRIBE_PRODUCERS, 0, dp);
            assertEquals(Errors.NONE.code(), pr.topics().get(0).partitions().get(0).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), pr.topics().get(1).partitions().get(0).errorCode());

            DescribeLogDirsRequestData ld = new DescribeLogDirsRequestData()
                    .setTopics(new DescribeLogDirsRequestData.DescribableLogDirTopicCollection());
            for (String name : List.of("nul-ok", NUL_NAME)) {
                ld.topics().add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic(name)
                        .setPartitions(List.of(0)));
            }
            DescribeLogDirsResponseData dl = call(s, ApiKeys.DESCRIBE_LOG_DIRS, 4, ld);
            assertEquals(Errors.NONE.code(), dl.errorCode());
            assertEquals(List.of("nul-ok"), dl.results().get(0).topics().stream()
                    .map(DescribeLogDirsResponseData.DescribeLogDirsTopic::name).toList());
        }
    }

    @Test
    void createTopicsAnswersEachTopicForItselfAndRefusesWhatApacheKafkaRefuses() throws Exception {
        try (Socket s = connect()) {
            CreateTopicsResponseData r = createTopics(s, topic("ct-ok", 2, -1), topic("ct-huge", 1_000_001, -1),
                    topic("ct-rf0", 1, 0), topic("ct-rf-2", 1, -2), topic("ct-dup", 1, -1), topic("ct-dup", 2, -1),
                    topic("ct-rf3", 1, 3));
            assertEquals(List.of(Errors.NONE), errors(r, "ct-ok"));
            assertEquals(List.of(Errors.INVALID_PARTITIONS), errors(r, "ct-huge"));
            assertEquals(List.of(Errors.INVALID_REPLICATION_FACTOR), errors(r, "ct-rf0"));
            assertEquals(List.of(Errors.INVALID_REPLICATION_FACTOR), errors(r, "ct-rf-2"));
            assertEquals(List.of(Errors.INVALID_REQUEST, Errors.INVALID_REQUEST), errors(r, "ct-dup"));
            assertEquals(List.of(Errors.NONE), errors(r, "ct-rf3"), "a replication factor above 0 is ignored");

            // an illegal name is refused for itself: the topics around it are created and answered so
            r = createTopics(s, topic("ct-before", 1, -1), topic("ct bad", 1, -1), topic("ct-after", 1, -1));
            assertEquals(List.of(Errors.NONE), errors(r, "ct-before"));
            assertEquals(List.of(Errors.INVALID_TOPIC_EXCEPTION), errors(r, "ct bad"));
            assertEquals(List.of(Errors.NONE), errors(r, "ct-after"));

            MetadataResponseData m = metadata(s, "ct-ok", "ct-huge", "ct-rf0", "ct-rf-2", "ct-dup", "ct-rf3",
                    "ct-before", "ct-after");
            assertEquals(2, named(m, "ct-ok").partitions().size());
            for (String refused : List.of("ct-huge", "ct-rf0", "ct-rf-2", "ct-dup")) {
                assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), named(m, refused).errorCode(), refused);
            }
            for (String created : List.of("ct-rf3", "ct-before", "ct-after")) {
                assertEquals(Errors.NONE.code(), named(m, created).errorCode(), created);
            }
        }
    }

    @Test
    void apiVersionsWithABogusClientSoftwareNameIsAnInvalidRequest() throws Exception {
        try (Socket s = connect()) {
            for (String[] bogus : List.of(new String[] {"evil\r\nclient", "1"}, new String[] {"client", "1.0 beta"},
                    new String[] {"", "1"}, new String[] {"-client", "1"})) {
                ApiVersionsResponseData v = call(s, ApiKeys.API_VERSIONS, 3, new ApiVersionsRequestData()
                        .setClientSoftwareName(bogus[0]).setClientSoftwareVersion(bogus[1]));
                assertEquals(Errors.INVALID_REQUEST.code(), v.errorCode(), bogus[0] + " " + bogus[1]);
            }
            ApiVersionsResponseData v = call(s, ApiKeys.API_VERSIONS, 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("apache-kafka-java").setClientSoftwareVersion("4.4.0"));
            assertEquals(Errors.NONE.code(), v.errorCode());
            assertTrue(v.apiKeys().size() > 10, "the served ranges");
        }
    }

    @Test
    void aFetchWithNegativeOffsetsAndSizesIsAnsweredPerPartition() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(createTopics(s, topic("neg-fetch", 2, -1)), "neg-fetch"));
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(-5).setMinBytes(-1)
                    .setMaxBytes(-1);
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopic("neg-fetch").setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(-5)
                            .setPartitionMaxBytes(1 << 20),
                    new FetchRequestData.FetchPartition().setPartition(1).setFetchOffset(0)
                            .setPartitionMaxBytes(-100),
                    new FetchRequestData.FetchPartition().setPartition(-1).setFetchOffset(0)
                            .setPartitionMaxBytes(1 << 20))));
            FetchResponseData f = call(s, ApiKeys.FETCH, 12, fetch);
            assertEquals(Errors.NONE.code(), f.errorCode());
            List<FetchResponseData.PartitionData> ps = f.responses().get(0).partitions();
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), ps.get(0).errorCode());
            assertEquals(Errors.NONE.code(), ps.get(1).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), ps.get(2).errorCode());
        }
    }

    @Test
    void listOffsetsForATimestampPastAnyDateFindsNoOffset() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(createTopics(s, topic("lo-far", 1, -1)), "lo-far"));
            ListOffsetsRequestData lo = new ListOffsetsRequestData().setReplicaId(-1);
            lo.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("lo-far").setPartitions(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                            .setTimestamp(Long.MAX_VALUE))));
            ListOffsetsResponseData.ListOffsetsPartitionResponse p = ((ListOffsetsResponseData) call(s,
                    ApiKeys.LIST_OFFSETS, 7, lo)).topics().get(0).partitions().get(0);
            assertEquals(Errors.NONE.code(), p.errorCode());
            assertEquals(-1, p.offset(), "no record is that late");
            assertEquals(-1, p.timestamp());
        }
    }

    @Test
    void groupMembersWhoseIdsCannotBeStoredAreRefusedWithInvalidRequest() throws Exception {
        try (Socket s = connect()) {
            // a static member whose instance id holds a NUL: the group could never save its state
            JoinGroupRequestData join = new JoinGroupRequestData().setGroupId("nul-classic").setMemberId("")
                    .setGroupInstanceId("instance\u0000one").setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(10_000).setProtocolType("consumer");
            join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[0]));
            JoinGroupResponseData j = call(s, ApiKeys.JOIN_GROUP, 5, join);
            assertEquals(Errors.INVALID_REQUEST.code(), j.errorCode());
            // a client id becomes part of the member id the broker gives a new member
            JoinGroupRequestData byClient = join.duplicate().setGroupInstanceId(null);
            j = KafkaFrames.call(s, ApiKeys.JOIN_GROUP, (short) 5, ++correlation, "client\u0000id", byClient);
            assertEquals(Errors.INVALID_REQUEST.code(), j.errorCode());

            ConsumerGroupHeartbeatResponseData c = call(s, ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1,
                    new ConsumerGroupHeartbeatRequestData().setGroupId("nul-consumer").setMemberId("member\u0000one")
                            .setMemberEpoch(0).setRebalanceTimeoutMs(10_000).setSubscribedTopicNames(List.of("t"))
                            .setTopicPartitions(List.of()));
            assertEquals(Errors.INVALID_REQUEST.code(), c.errorCode());
            assertTrue(c.errorMessage().contains("MemberId"), c.errorMessage());

            ShareGroupHeartbeatResponseData h = call(s, ApiKeys.SHARE_GROUP_HEARTBEAT, 1,
                    new ShareGroupHeartbeatRequestData().setGroupId("nul-share").setMemberId("member\u0000one")
                            .setMemberEpoch(0).setSubscribedTopicNames(List.of("t")));
            assertEquals(Errors.INVALID_REQUEST.code(), h.errorCode());
            ShareFetchResponseData f = call(s, ApiKeys.SHARE_FETCH, 1, new ShareFetchRequestData()
                    .setGroupId("nul-share").setMemberId("member\u0000one").setShareSessionEpoch(-1)
                    .setMaxWaitMs(0).setMaxBytes(1 << 20).setMaxRecords(10).setBatchSize(10));
            assertEquals(Errors.INVALID_REQUEST.code(), f.errorCode());

            // the same requests with storable ids are served
            join.setGroupInstanceId("instance-one");
            assertEquals(Errors.NONE.code(), ((JoinGroupResponseData) call(s, ApiKeys.JOIN_GROUP, 5, join))
                    .errorCode());
            assertEquals(Errors.NONE.code(), ((ConsumerGroupHeartbeatResponseData) call(s,
                    ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1, new ConsumerGroupHeartbeatRequestData()
                            .setGroupId("nul-consumer").setMemberId("member-one").setMemberEpoch(0)
                            .setRebalanceTimeoutMs(10_000).setSubscribedTopicNames(List.of("t"))
                            .setTopicPartitions(List.of()))).errorCode());
            assertEquals(Errors.NONE.code(), ((ShareGroupHeartbeatResponseData) call(s,
                    ApiKeys.SHARE_GROUP_HEARTBEAT, 1, new ShareGroupHeartbeatRequestData().setGroupId("nul-share")
                            .setMemberId("member-one").setMemberEpoch(0).setSubscribedTopicNames(List.of("t"))))
                    .errorCode());
        }
    }

    @Test
    void commitMetadataLongerThanKafkaTakesIsRefusedForItsPartitionAndTheOthersAreCommitted() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(createTopics(s, topic("om-long", 2, -1)), "om-long"));
        }
        TopicPartition first = new TopicPartition("om-long", 0);
        TopicPartition second = new TopicPartition("om-long", 1);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(bootstrap(), "om-group"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            assertThrows(OffsetMetadataTooLarge.class, () -> c.commitSync(Map.of(
                    first, new OffsetAndMetadata(3, "m".repeat(4097)), second, new OffsetAndMetadata(5, "fits"))));
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.of(first, second),
                    Duration.ofSeconds(30));
            assertNull(committed.get(first), "not committed");
            assertEquals(5, committed.get(second).offset(), "the request's other partition is committed");

            c.commitSync(Map.of(first, new OffsetAndMetadata(3, "m".repeat(4096))), Duration.ofSeconds(30));
            assertEquals(3, c.committed(Set.of(first), Duration.ofSeconds(30)).get(first).offset(),
                    "metadata as long as Kafka takes is accepted");
        }
    }

    @Test
    void aConfigResourceOfATypeKafkaDoesNotKnowIsAnInvalidRequestForItself() throws Exception {
        try (Admin a = admin()) {
            a.createTopics(List.of(new NewTopic("cfg-known", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            ConfigResource unknown = new ConfigResource(ConfigResource.Type.UNKNOWN, "whatever");
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "cfg-known");
            var described = a.describeConfigs(List.of(unknown, topic)).values();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> described.get(unknown).get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof InvalidRequestException, e.getCause().toString());
            assertTrue(e.getCause().getMessage().contains("resource type"), e.getCause().getMessage());
            assertEquals("-1", described.get(topic).get(30, TimeUnit.SECONDS).get("retention.bytes").value(),
                    "the request's other resource is described");

            e = assertThrows(ExecutionException.class, () -> a.incrementalAlterConfigs(Map.of(unknown, List.of(
                    new AlterConfigOp(new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET)))).all()
                    .get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof InvalidRequestException, "the type is refused before the config name: "
                    + e.getCause());
        }
        // a type id the Java client cannot name, on each config API
        byte bogus = 99;
        try (Socket s = connect()) {
            DescribeConfigsResponseData d = call(s, ApiKeys.DESCRIBE_CONFIGS, 4, new DescribeConfigsRequestData()
                    .setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType(bogus).setResourceName("x"))));
            assertEquals(Errors.INVALID_REQUEST.code(), d.results().get(0).errorCode());
            assertEquals("Unknown resource type 99.", d.results().get(0).errorMessage());
            assertTrue(d.results().get(0).configs().isEmpty());

            AlterConfigsRequestData.AlterConfigsResourceCollection alter =
                    new AlterConfigsRequestData.AlterConfigsResourceCollection();
            alter.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType(bogus).setResourceName("x")
                    .setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(List.of(
                            new AlterConfigsRequestData.AlterableConfig().setName("no.such.config").setValue("1"))
                            .iterator())));  // an unknown config too: the type is refused first
            AlterConfigsResponseData ac = call(s, ApiKeys.ALTER_CONFIGS, 2, new AlterConfigsRequestData()
                    .setResources(alter));
            assertEquals(Errors.INVALID_REQUEST.code(), ac.responses().get(0).errorCode());
            assertEquals("Unknown resource type 99.", ac.responses().get(0).errorMessage());

            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection incremental =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            incremental.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(bogus)
                    .setResourceName("x"));
            IncrementalAlterConfigsResponseData ic = call(s, ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1,
                    new IncrementalAlterConfigsRequestData().setResources(incremental));
            assertEquals(Errors.INVALID_REQUEST.code(), ic.responses().get(0).errorCode());
            assertEquals("Unknown resource type 99.", ic.responses().get(0).errorMessage());
        }
    }

    /**
     * A classic assignor whose subscription metadata and assignments carry as many bytes as its configs
     * {@value #SUBSCRIPTION_BYTES} and {@value #ASSIGNMENT_BYTES} say.
     */
    public static class BulkyAssignor implements ConsumerPartitionAssignor, Configurable {
        static final String SUBSCRIPTION_BYTES = "bulky.subscription.bytes";
        static final String ASSIGNMENT_BYTES = "bulky.assignment.bytes";
        private int subscriptionBytes;
        private int assignmentBytes;

        @Override
        public void configure(Map<String, ?> configs) {
            subscriptionBytes = Integer.parseInt(String.valueOf(configs.get(SUBSCRIPTION_BYTES)));
            assignmentBytes = Integer.parseInt(String.valueOf(configs.get(ASSIGNMENT_BYTES)));
        }

        @Override
        public ByteBuffer subscriptionUserData(Set<String> topics) {
            return ByteBuffer.wrap(new byte[subscriptionBytes]);
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions) {
            Map<String, Assignment> out = new HashMap<>();
            for (String member : subscriptions.groupSubscription().keySet()) {
                out.put(member, new Assignment(List.of(), ByteBuffer.wrap(new byte[assignmentBytes])));
            }
            return new GroupAssignment(out);
        }

        @Override
        public String name() {
            return "bulky";
        }
    }

    /** What {@code poll} throws within a minute (null: nothing). */
    static RuntimeException pollFailure(java.util.function.Consumer<Duration> poll) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                poll.accept(Duration.ofMillis(200));
            } catch (RuntimeException e) {
                return e;
            }
        }
        return null;
    }

    /** A heartbeat's answer to a subscription over the limit, as the client reports it: it names the limit. */
    static void assertRefusedSubscription(RuntimeException e) {
        assertTrue(e instanceof InvalidRequestException
                && e.getMessage().contains("QUEEN_KAFKA_GROUP_MAX_MEMBER_BYTES"), String.valueOf(e));
    }

    /** What a classic member of {@code group} using {@link BulkyAssignor} fails with. */
    RuntimeException bulkyMemberFailure(String group, int subscriptionBytes, int assignmentBytes) {
        Properties p = consumerProperties(bootstrap(), group);
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, BulkyAssignor.class.getName());
        p.put(BulkyAssignor.SUBSCRIPTION_BYTES, Integer.toString(subscriptionBytes));
        p.put(BulkyAssignor.ASSIGNMENT_BYTES, Integer.toString(assignmentBytes));
        try (Consumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.subscribe(List.of("bulky"));
            return pollFailure(c::poll);
        }
    }

    @Test
    void aGroupMemberKeepingMoreThanAMemberMayIsStoppedWithAnErrorItsClientReports() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(createTopics(s, topic("bulky", 1, -1)), "bulky"));
        }
        int over = KafkaEnabled.MAX_MEMBER_BYTES + 1;
        RuntimeException join = bulkyMemberFailure("bulky-join", over, 1);
        assertTrue(join instanceof KafkaException && join.getMessage().contains("join group")
                && join.getMessage().contains("larger than the max message size"), String.valueOf(join));
        RuntimeException sync = bulkyMemberFailure("bulky-sync", 1, over);
        assertTrue(sync instanceof KafkaException && sync.getMessage().contains("SyncGroup")
                && sync.getMessage().contains("larger than the max message size"), String.valueOf(sync));

        // KIP-848 and share members: topic names are the bytes they keep
        List<String> names = new ArrayList<>();
        for (int bytes = 0; bytes <= KafkaEnabled.MAX_MEMBER_BYTES; bytes += 200) {
            names.add(String.format("n%05d-", names.size()) + "x".repeat(193));
        }
        Properties p = consumerProperties(bootstrap(), "bulky-consumer");
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        try (Consumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.subscribe(names);
            assertRefusedSubscription(pollFailure(c::poll));
        }
        Properties sp = new Properties();
        sp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        sp.put(ConsumerConfig.GROUP_ID_CONFIG, "bulky-share");
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(sp, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.subscribe(names);
            assertRefusedSubscription(pollFailure(c::poll));
        }
    }
}
