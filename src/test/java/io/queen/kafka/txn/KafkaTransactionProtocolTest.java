package io.queen.kafka.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaFrames;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.net.Socket;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Transactional requests the Java producer cannot be made to send, over a raw socket with the kafka-clients
 * message classes: bad timeouts, unknown transactional ids, stale epochs (in the error each version expects),
 * records for partitions not added, batches of the wrong kind, a transaction over the staging limit, offsets for a
 * group not added or with a stale generation or with metadata longer than Kafka takes, and EndTxn retried or
 * contradicted.
 */
@QuarkusTest
@TestProfile(KafkaTransactionProtocolTest.Limited.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaTransactionProtocolTest {
    /** A small staging limit and timeout cap, to be reached by a test. */
    public static class Limited extends KafkaEnabled {
        public Limited() {
            super("queen.kafka.txn.max-bytes", "4K", "queen.kafka.txn.max-timeout-ms", "60000");
        }
    }

    @Inject
    KafkaListener listener;

    private int correlation;

    /** Sends one request and reads its answer. */
    ApiMessage call(Socket s, ApiKeys key, int version, ApiMessage body) throws Exception {
        return KafkaFrames.call(s, key, (short) version, ++correlation, body);
    }

    InitProducerIdResponseData init(Socket s, String tid, int timeoutMs) throws Exception {
        return (InitProducerIdResponseData) call(s, ApiKeys.INIT_PRODUCER_ID, 4, new InitProducerIdRequestData()
                .setTransactionalId(tid).setTransactionTimeoutMs(timeoutMs).setProducerId(-1).setProducerEpoch((short) -1));
    }

    AddPartitionsToTxnResponseData add(Socket s, int version, String tid, long pid, short epoch, String topic,
            Integer... partitions) throws Exception {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnTopic().setName(topic).setPartitions(List.of(partitions)));
        return (AddPartitionsToTxnResponseData) call(s, ApiKeys.ADD_PARTITIONS_TO_TXN, version,
                new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId(tid).setV3AndBelowProducerId(pid)
                        .setV3AndBelowProducerEpoch(epoch).setV3AndBelowTopics(topics));
    }

    static short addError(AddPartitionsToTxnResponseData r, String topic, int partition) {
        return r.resultsByTopicV3AndBelow().find(topic).resultsByPartition().find(partition).partitionErrorCode();
    }

    ProduceResponseData.PartitionProduceResponse produce(Socket s, String tid, String topic, int partition,
            MemoryRecords records) throws Exception {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records))));
        ProduceResponseData r = (ProduceResponseData) call(s, ApiKeys.PRODUCE, 11, new ProduceRequestData()
                .setTransactionalId(tid).setAcks((short) -1).setTimeoutMs(30000).setTopicData(topics));
        return r.responses().iterator().next().partitionResponses().get(0);
    }

    static MemoryRecords txnBatch(long pid, short epoch, int seq, int records, int valueBytes) {
        SimpleRecord[] rs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            rs[i] = new SimpleRecord(("k" + i).getBytes(), new byte[valueBytes]);
        }
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, seq, rs);
    }

    short addOffsets(Socket s, String tid, long pid, short epoch, String group) throws Exception {
        return ((AddOffsetsToTxnResponseData) call(s, ApiKeys.ADD_OFFSETS_TO_TXN, 3, new AddOffsetsToTxnRequestData()
                .setTransactionalId(tid).setProducerId(pid).setProducerEpoch(epoch).setGroupId(group))).errorCode();
    }

    short endTxn(Socket s, int version, String tid, long pid, short epoch, boolean commit) throws Exception {
        return ((EndTxnResponseData) call(s, ApiKeys.END_TXN, version, new EndTxnRequestData().setTransactionalId(tid)
                .setProducerId(pid).setProducerEpoch(epoch).setCommitted(commit))).errorCode();
    }

    void createTopic(Socket s, String name) throws Exception {
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(2)
                .setReplicationFactor((short) 1));
        call(s, ApiKeys.CREATE_TOPICS, 7, new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30000));
    }

    Socket connect() throws Exception {
        return KafkaFrames.connect(listener.port());
    }

    @Test
    void badTimeoutsAndIdsAreRefused() throws Exception {
        try (Socket s = connect()) {
            assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT.code(), init(s, "t-bad", 0).errorCode());
            assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT.code(), init(s, "t-bad", 60001).errorCode());
            assertEquals(Errors.INVALID_REQUEST.code(), init(s, "bad\u0000id", 1000).errorCode());
            assertEquals(Errors.INVALID_REQUEST.code(), init(s, "", 1000).errorCode());
            // an id never initialized
            createTopic(s, "proto-never");
            assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(),
                    addError(add(s, 3, "t-never", 12345, (short) 0, "proto-never", 0), "proto-never", 0));
            assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(), endTxn(s, 3, "t-never", 12345, (short) 0, true));
        }
    }

    @Test
    void staleEpochsAreFencedInTheErrorEachVersionKnows() throws Exception {
        try (Socket s = connect()) {
            createTopic(s, "proto-fence");
            InitProducerIdResponseData first = init(s, "t-fence", 10000);
            assertEquals(Errors.NONE.code(), first.errorCode());
            InitProducerIdResponseData second = init(s, "t-fence", 10000);
            assertEquals(first.producerId(), second.producerId());
            assertEquals(first.producerEpoch() + 1, second.producerEpoch());
            long pid = first.producerId();
            short old = first.producerEpoch();
            assertEquals(Errors.PRODUCER_FENCED.code(), addError(add(s, 3, "t-fence", pid, old, "proto-fence", 0),
                    "proto-fence", 0));
            assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), addError(add(s, 1, "t-fence", pid, old, "proto-fence",
                    0), "proto-fence", 0));
            assertEquals(Errors.PRODUCER_FENCED.code(), endTxn(s, 3, "t-fence", pid, old, false));
            assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), endTxn(s, 1, "t-fence", pid, old, false));
            assertEquals(Errors.PRODUCER_FENCED.code(), addOffsets(s, "t-fence", pid, old, "g"));
            // the current epoch opens a transaction; the stale one's records are refused
            short cur = second.producerEpoch();
            assertEquals(Errors.NONE.code(), addError(add(s, 3, "t-fence", pid, cur, "proto-fence", 0),
                    "proto-fence", 0));
            assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(),
                    produce(s, "t-fence", "proto-fence", 0, txnBatch(pid, old, 0, 1, 10)).errorCode());
            // a recovering producer (KIP-360) naming an epoch that is not the current one is fenced
            InitProducerIdResponseData recover = (InitProducerIdResponseData) call(s, ApiKeys.INIT_PRODUCER_ID, 4,
                    new InitProducerIdRequestData().setTransactionalId("t-fence").setTransactionTimeoutMs(10000)
                            .setProducerId(pid).setProducerEpoch(old));
            assertEquals(Errors.PRODUCER_FENCED.code(), recover.errorCode());
        }
    }

    @Test
    void recordsAndOffsetsOutsideTheTransactionAreRefused() throws Exception {
        try (Socket s = connect()) {
            createTopic(s, "proto-add");
            InitProducerIdResponseData p = init(s, "t-add", 10000);
            long pid = p.producerId();
            short e = p.producerEpoch();
            // no transaction open yet
            assertEquals(Errors.INVALID_TXN_STATE.code(),
                    produce(s, "t-add", "proto-add", 0, txnBatch(pid, e, 0, 1, 10)).errorCode());
            // an unknown topic: that partition UNKNOWN_TOPIC_OR_PARTITION, nothing added
            AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
            topics.add(new AddPartitionsToTxnTopic().setName("proto-add").setPartitions(List.of(0)));
            topics.add(new AddPartitionsToTxnTopic().setName("no-such-topic").setPartitions(List.of(0)));
            AddPartitionsToTxnResponseData mixed = (AddPartitionsToTxnResponseData) call(s,
                    ApiKeys.ADD_PARTITIONS_TO_TXN, 3, new AddPartitionsToTxnRequestData()
                            .setV3AndBelowTransactionalId("t-add").setV3AndBelowProducerId(pid)
                            .setV3AndBelowProducerEpoch(e).setV3AndBelowTopics(topics));
            assertEquals(Errors.OPERATION_NOT_ATTEMPTED.code(), addError(mixed, "proto-add", 0));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), addError(mixed, "no-such-topic", 0));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    addError(add(s, 3, "t-add", pid, e, "proto-add", 7), "proto-add", 7));

            assertEquals(Errors.NONE.code(), addError(add(s, 3, "t-add", pid, e, "proto-add", 0), "proto-add", 0));
            // partition 1 was not added
            assertEquals(Errors.INVALID_TXN_STATE.code(),
                    produce(s, "t-add", "proto-add", 1, txnBatch(pid, e, 0, 1, 10)).errorCode());
            // a non-transactional batch in a transactional produce
            assertEquals(Errors.INVALID_RECORD.code(), produce(s, "t-add", "proto-add", 0,
                    MemoryRecords.withIdempotentRecords(Compression.NONE, pid, e, 0,
                            new SimpleRecord("v".getBytes()))).errorCode());
            ProduceResponseData.PartitionProduceResponse ok =
                    produce(s, "t-add", "proto-add", 0, txnBatch(pid, e, 0, 2, 10));
            assertEquals(Errors.NONE.code(), ok.errorCode());
            assertEquals(-1, ok.baseOffset());
            // the same batch again (a retry) stages nothing more; over the 4K limit the transaction must abort
            assertEquals(Errors.NONE.code(), produce(s, "t-add", "proto-add", 0, txnBatch(pid, e, 0, 2, 10))
                    .errorCode());
            ProduceResponseData.PartitionProduceResponse big =
                    produce(s, "t-add", "proto-add", 0, txnBatch(pid, e, 2, 1, 5000));
            assertEquals(Errors.TRANSACTION_ABORTABLE.code(), big.errorCode());
            assertTrue(big.errorMessage().contains("QUEEN_KAFKA_TXN_MAX_BYTES"), big.errorMessage());

            // offsets for a group not added to the transaction
            TxnOffsetCommitRequestData commit = new TxnOffsetCommitRequestData().setTransactionalId("t-add")
                    .setGroupId("proto-group").setProducerId(pid).setProducerEpoch(e).setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("").setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                            .setName("proto-add").setPartitions(List.of(
                                    new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                            .setPartitionIndex(0).setCommittedOffset(1)))));
            assertEquals(Errors.INVALID_TXN_STATE.code(), offsetError(call(s, ApiKeys.TXN_OFFSET_COMMIT, 3, commit)));
            assertEquals(Errors.NONE.code(), addOffsets(s, "t-add", pid, e, "proto-group"));
            // a member and generation the group does not know (zombie fencing)
            assertEquals(Errors.ILLEGAL_GENERATION.code(), offsetError(call(s, ApiKeys.TXN_OFFSET_COMMIT, 3,
                    commit.duplicate().setGenerationIdOrMemberEpoch(4).setMemberId("gone-member"))));
            assertEquals(Errors.NONE.code(), offsetError(call(s, ApiKeys.TXN_OFFSET_COMMIT, 3, commit)));

            // commit, a retried commit, then an abort that contradicts it
            assertEquals(Errors.NONE.code(), endTxn(s, 3, "t-add", pid, e, true));
            assertEquals(Errors.NONE.code(), endTxn(s, 3, "t-add", pid, e, true));
            assertEquals(Errors.INVALID_TXN_STATE.code(), endTxn(s, 3, "t-add", pid, e, false));
            // a transaction that was never opened cannot end
            InitProducerIdResponseData q = init(s, "t-empty", 10000);
            assertEquals(Errors.INVALID_TXN_STATE.code(), endTxn(s, 3, "t-empty", q.producerId(), q.producerEpoch(),
                    true));
        }
    }

    static short offsetError(ApiMessage m) {
        return ((TxnOffsetCommitResponseData) m).topics().get(0).partitions().get(0).errorCode();
    }

    @Test
    void offsetMetadataLongerThanKafkaTakesIsRefusedForItsPartitionAndTheOthersAreStaged() throws Exception {
        try (Socket s = connect()) {
            createTopic(s, "proto-meta");
            InitProducerIdResponseData producer = init(s, "t-meta", 10000);
            assertEquals(Errors.NONE.code(), addOffsets(s, "t-meta", producer.producerId(), producer.producerEpoch(),
                    "meta-group"));
            TxnOffsetCommitResponseData r = (TxnOffsetCommitResponseData) call(s, ApiKeys.TXN_OFFSET_COMMIT, 3,
                    new TxnOffsetCommitRequestData().setTransactionalId("t-meta").setGroupId("meta-group")
                            .setProducerId(producer.producerId()).setProducerEpoch(producer.producerEpoch())
                            .setGenerationIdOrMemberEpoch(-1).setMemberId("")
                            .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                    .setName("proto-meta").setPartitions(List.of(
                                            new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                                    .setPartitionIndex(0).setCommittedOffset(4)
                                                    .setCommittedMetadata("m".repeat(4097)),
                                            new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                                    .setPartitionIndex(1).setCommittedOffset(6)
                                                    .setCommittedMetadata("fits"))))));
            List<TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition> ps = r.topics().get(0).partitions();
            assertEquals(Errors.OFFSET_METADATA_TOO_LARGE.code(), ps.get(0).errorCode());
            assertEquals(Errors.NONE.code(), ps.get(1).errorCode());
            assertEquals(Errors.NONE.code(), endTxn(s, 3, "t-meta", producer.producerId(), producer.producerEpoch(),
                    true));

            OffsetFetchResponseData f = (OffsetFetchResponseData) call(s, ApiKeys.OFFSET_FETCH, 8,
                    new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("meta-group").setTopics(List.of(new OffsetFetchRequestData
                                    .OffsetFetchRequestTopics().setName("proto-meta").setPartitionIndexes(
                                            List.of(0, 1)))))));
            List<OffsetFetchResponseData.OffsetFetchResponsePartitions> fetched =
                    f.groups().get(0).topics().get(0).partitions();
            assertEquals(-1, fetched.get(0).committedOffset(), "not committed");
            assertEquals(6, fetched.get(1).committedOffset(), "committed with the transaction");
        }
    }
}
