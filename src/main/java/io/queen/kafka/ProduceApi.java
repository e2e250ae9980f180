package io.queen.kafka;

import io.queen.api.ApiException;
import io.queen.auth.Caller;
import io.queen.browse.ReadStore;
import io.queen.config.QueenConfig;
import io.queen.envelope.KafkaRecordFormat;
import io.queen.envelope.RecordEnvelope;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import io.queen.kafka.txn.TransactionCoordinator;
import io.queen.kafka.txn.TxnStore;
import io.queen.push.LogWriter;
import io.queen.push.PushFusion;
import io.queen.push.PushItem;
import io.queen.push.SegmentPacker;
import io.queen.segment.KafkaTxnId;
import io.queen.segment.TransactionHash;
import io.queen.segment.Uuid7;
import io.queen.tracing.BrokerTracing;
import io.queen.tracing.TraceParent;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Produce and InitProducerId. Every record of a batch becomes one Queen message ({@link RecordEnvelope}) written
 * through the same fusion as HTTP pushes, {@link LogWriter#produce} (read-your-writes: the answer goes out once the
 * segment has committed, whatever {@code acks} says; {@code acks=0} only suppresses the answer).
 *
 * <p>Idempotence: a record of an idempotent producer gets the transaction id
 * {@code kafka:<producerId>:<epoch>:<sequence>}, so Queen's exact windowed dedup makes a retried batch write
 * nothing; the retry is answered with success and the offset its first record got the first time, as Apache Kafka
 * answers a duplicate batch. Sequence gaps are not checked (no OUT_OF_ORDER_SEQUENCE_NUMBER). Producer ids come
 * from a database sequence, unique across brokers and restarts.
 *
 * <p>Transactions ({@link TransactionCoordinator}): InitProducerId with a transactional id goes to the coordinator;
 * a transactional Produce stages its batches there (packed into segments here, as a push packs them, one SQL call
 * per request) and is answered base offset -1, since offsets are only given at the commit. Non-transactional
 * produce never touches the staging. Stateless, thread-safe.
 */
@ApplicationScoped
class ProduceApi implements KafkaApiProvider {
    private final Topics topics;
    private final KafkaStore store;
    private final ReadStore reads;
    private final LogWriter writer;
    private final long maxBatchBytes;
    private final QueenConfig.Kafka limits;
    private final int zstdLevel;
    private final TransactionCoordinator transactions;
    private final ExecutorService answers = Executors
            .newThreadPerTaskExecutor(Thread.ofVirtual().name("queen-kafka-produce-", 0).factory());

    ProduceApi(Topics topics, KafkaStore store, ReadStore reads, LogWriter writer, QueenConfig config,
            TransactionCoordinator transactions) {
        this.transactions = transactions;
        this.zstdLevel = config.zstdLevel();
        this.topics = topics;
        this.store = store;
        this.reads = reads;
        this.writer = writer;
        this.maxBatchBytes = config.kafka().maxBatchBytes().asLongValue();
        this.limits = config.kafka();
    }

    @Override
    public void register(KafkaApis apis) {
        // in order: a pipelining producer's batches of one partition must reach their lane in send order
        apis.serveInOrder(ApiKeys.PRODUCE, 12, (KafkaHandler<ProduceRequestData>) (c, v, r) -> produce(c, r))
                .serve(ApiKeys.INIT_PRODUCER_ID, 5, (KafkaHandler<InitProducerIdRequestData>) (c, v, r) ->
                        TopicApis.done(initProducerId(c, v, r)));
    }

    InitProducerIdResponseData initProducerId(KafkaCaller caller, short version, InitProducerIdRequestData request)
            throws Exception {
        InitProducerIdResponseData out = new InitProducerIdResponseData();
        if (request.transactionalId() != null) {
            return transactions.initProducerId(caller, version, request.transactionalId(),
                    request.transactionTimeoutMs(), request.producerId(), request.producerEpoch());
        }
        if (request.producerId() >= 0 && request.producerEpoch() >= 0 && request.producerEpoch() < Short.MAX_VALUE - 1) {
            // an idempotent producer bumping its epoch after an error keeps its id
            return out.setProducerId(request.producerId()).setProducerEpoch((short) (request.producerEpoch() + 1));
        }
        return out.setProducerId(store.nextProducerId()).setProducerEpoch((short) 0);
    }

    /** One partition of the request: where its answer goes and the items it pushes. */
    private static final class Lane {
        final String queue;
        final String partition;
        final PartitionProduceResponse answer;
        final List<PushItem> items = new ArrayList<>();
        CompletableFuture<List<PushFusion.Verdict>> verdicts;
        /** A transactional lane's batch: its producer, epoch, first sequence and size as sent. */
        long producerId = -1;
        short epoch;
        int baseSequence;
        long bytes;

        Lane(String queue, String partition, PartitionProduceResponse answer) {
            this.queue = queue;
            this.partition = partition;
            this.answer = answer;
        }
    }

    /**
     * Queues the request's records for their segments before it returns (so the next request of the connection
     * queues after it); the stage completes once every segment has committed.
     */
    CompletableFuture<ProduceResponseData> produce(KafkaCaller caller, ProduceRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        ProduceResponseData out = new ProduceResponseData();
        Map<String, KafkaStore.Topic> found = topics.lookupRecent(tenant, request.topicData(),
                ProduceRequestData.TopicProduceData::name,
                td -> td.partitionData().stream().mapToInt(ProduceRequestData.PartitionProduceData::index).max()
                        .orElse(-1), true);
        boolean transactional = request.transactionalId() != null;
        // staging does not write the log: only the commit waits for push maintenance
        boolean refused = !transactional && writer.holdsPushes();
        List<Lane> lanes = new ArrayList<>();
        ProducedRecords reader = new ProducedRecords(limits.maxDecompressedBatchBytes().asLongValue(),
                limits.maxDecompressedRequestBytes().asLongValue(), limits.maxBatchRecords(),
                limits.maxRequestRecords());
        int index = 0;
        for (ProduceRequestData.TopicProduceData td : request.topicData()) {
            TopicProduceResponse tr = new TopicProduceResponse().setName(td.name());
            out.responses().add(tr);
            KafkaStore.Topic topic = found.get(td.name());
            for (ProduceRequestData.PartitionProduceData pd : td.partitionData()) {
                PartitionProduceResponse pr = new PartitionProduceResponse().setIndex(pd.index()).setBaseOffset(-1);
                tr.partitionResponses().add(pr);
                if (topic == null || pd.index() < 0 || pd.index() >= topic.partitions()) {
                    Errors e = Topics.valid(td.name()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
                    pr.setErrorCode(e.code());
                    continue;
                }
                if (refused) {
                    pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage("push maintenance");
                    continue;
                }
                Lane lane = new Lane(td.name(), Integer.toString(pd.index()), pr);
                if (!(pd.records() instanceof MemoryRecords records) || !records.batches().iterator().hasNext()) {
                    // Apache Kafka: "must have at least one record batch per partition"
                    pr.setErrorCode(Errors.INVALID_RECORD.code()).setErrorMessage("a partition without records");
                    continue;
                }
                if (largestBatch((MemoryRecords) pd.records()) > maxBatchBytes) {
                    pr.setErrorCode(Errors.MESSAGE_TOO_LARGE.code()).setErrorMessage("a record batch is larger than "
                            + maxBatchBytes + " bytes (QUEEN_KAFKA_MAX_BATCH_BYTES)");
                    continue;
                }
                try {
                    index = items(lane, records, index, transactional, reader);
                } catch (ProducedRecords.Refused e) {
                    pr.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                    continue;
                } catch (CorruptRecordException e) {
                    pr.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setErrorMessage(e.getMessage());
                    continue;
                } catch (IllegalArgumentException e) {
                    pr.setErrorCode(Errors.INVALID_RECORD.code()).setErrorMessage(e.getMessage());
                    continue;
                }
                if (!lane.items.isEmpty()) {
                    lanes.add(lane);
                }
            }
        }
        if (transactional) {
            stage(tenant, caller, request.transactionalId(), lanes);
            return CompletableFuture.completedFuture(out);
        }
        return submit(tenant, caller, lanes).thenApplyAsync(x -> {
            try {
                for (Lane lane : lanes) {
                    answer(lane);
                }
            } catch (Exception e) {
                throw new CompletionException(e);
            }
            return out;
        }, answers);
    }

    /** Bytes of the largest record batch in {@code records} (0 for none). */
    private static long largestBatch(MemoryRecords records) {
        long max = 0;
        if (records != null) {
            for (RecordBatch batch : records.batches()) {
                max = Math.max(max, batch.sizeInBytes());
            }
        }
        return max;
    }

    private static int items(Lane lane, MemoryRecords records, int index, boolean transactional,
            ProducedRecords reader) throws ProducedRecords.Refused {
        ByteBuffer buffer = records.buffer();
        int at = buffer.position();
        for (RecordBatch batch : records.batches()) {
            ByteBuffer bytes = buffer.slice(at, batch.sizeInBytes());
            at += batch.sizeInBytes();
            if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
                throw new IllegalArgumentException("record batches of magic " + batch.magic()
                        + " are not accepted (v2 only)");
            }
            batch.ensureValid();
            if (batch.isControlBatch()) {
                throw new IllegalArgumentException("control batches are not accepted");
            }
            boolean idempotent = batch.hasProducerId() && batch.baseSequence() >= 0;
            if (batch.isTransactional() != transactional || (transactional && !idempotent)) {
                throw new IllegalArgumentException(transactional
                        ? "a produce with a transactional id takes only transactional batches with producer id and"
                                + " sequence"
                        : "a transactional batch needs the produce's transactional id");
            }
            if (transactional) {
                if (lane.producerId >= 0) {
                    throw new IllegalArgumentException("one record batch per partition in a transactional produce");
                }
                lane.producerId = batch.producerId();
                lane.epoch = batch.producerEpoch();
                lane.baseSequence = batch.baseSequence();
                lane.bytes = batch.sizeInBytes();
            }
            int i = 0;
            for (Record r : reader.read(batch, bytes)) {
                UUID messageId = Uuid7.next();
                String txn = idempotent
                        ? KafkaTxnId.of(batch.producerId(), batch.producerEpoch(), batch.baseSequence() + i)
                        : KafkaTxnId.of(messageId);
                Header[] headers = r.headers();
                byte[] payload = KafkaRecordFormat.encode(r.timestamp(), r.hasKey() ? r.key() : null,
                        r.hasValue() ? r.value() : null, headers);
                TraceParent trace = headers.length == 0 ? null : RecordEnvelope.traceParent(headers);
                if (trace != null) {
                    BrokerTracing.linkCurrent(trace);
                }
                lane.items.add(new PushItem(index++, lane.queue, lane.partition, txn,
                        txn.getBytes(StandardCharsets.UTF_8), trace == null ? null : trace.traceId(), messageId,
                        payload, false, null, true, trace == null ? 0 : trace.spanId(),
                        trace == null ? 0 : trace.flags()));
                i++;
            }
        }
        return index;
    }

    /**
     * The lanes' items as stored: stamped with the token's subject (as HTTP pushes are) and encrypted where the
     * tenant's policy says; null (every lane answered POLICY_VIOLATION) when the policy refuses them.
     */
    private List<PushItem> stored(UUID tenant, KafkaCaller caller, List<Lane> lanes) throws Exception {
        List<PushItem> all = new ArrayList<>();
        for (Lane lane : lanes) {
            all.addAll(lane.items);
        }
        try {
            return writer.stored(new Caller(tenant, caller.subject(), caller.role()), all);
        } catch (ApiException e) {
            for (Lane lane : lanes) {
                lane.answer.setErrorCode(Errors.POLICY_VIOLATION.code()).setErrorMessage(e.getMessage());
            }
            lanes.clear();
            return null;
        }
    }

    /**
     * Stages the transactional lanes with the coordinator, each packed into one segment as a push would write it;
     * a staged lane is answered base offset -1 (its offsets are given at the commit).
     */
    private void stage(UUID tenant, KafkaCaller caller, String transactionalId, List<Lane> lanes) throws Exception {
        if (lanes.isEmpty()) {
            return;
        }
        List<PushItem> stored = stored(tenant, caller, lanes);
        if (stored == null) {
            return;
        }
        long pid = lanes.get(0).producerId;
        short epoch = lanes.get(0).epoch;
        List<Lane> staged = new ArrayList<>(lanes.size());
        List<TxnStore.StagedBatch> batches = new ArrayList<>(lanes.size());
        int at = 0;
        for (Lane lane : lanes) {
            List<PushItem> items = stored.subList(at, at + lane.items.size());
            at += lane.items.size();
            if (lane.producerId != pid || lane.epoch != epoch) {
                lane.answer.setErrorCode(Errors.INVALID_RECORD.code())
                        .setErrorMessage("the batches of one transactional produce carry one producer id and epoch");
                continue;
            }
            SegmentPacker.Packed packed = SegmentPacker.pack(items, zstdLevel);
            staged.add(lane);
            batches.add(new TxnStore.StagedBatch(lane.queue, lane.partition, lane.baseSequence, packed.count(),
                    lane.bytes, packed.hashes(), packed.blob()));
        }
        if (batches.isEmpty()) {
            return;
        }
        List<Errors> errors;
        try {
            errors = transactions.stage(tenant, transactionalId, pid, epoch, batches);
        } catch (SQLException e) {
            for (Lane lane : staged) {
                lane.answer.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage("retry");
            }
            return;
        }
        for (int i = 0; i < staged.size(); i++) {
            Errors e = errors.get(i);
            PartitionProduceResponse answer = staged.get(i).answer.setErrorCode(e.code()).setBaseOffset(-1);
            if (e == Errors.TRANSACTION_ABORTABLE) {
                answer.setErrorMessage(transactions.limitMessage());
            }
        }
    }

    /**
     * Writes the lanes through the fusion, the commits running on threads of their own (this request's order is
     * fixed once its items are queued); the stage completes once every verdict is in and counted.
     */
    private CompletableFuture<Void> submit(UUID tenant, KafkaCaller caller, List<Lane> lanes) throws Exception {
        if (lanes.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<PushItem> stored = stored(tenant, caller, lanes);
        if (stored == null) {
            return CompletableFuture.completedFuture(null);
        }
        int at = 0;
        List<LogWriter.Lane> writes = new ArrayList<>(lanes.size());
        for (Lane lane : lanes) {
            writes.add(new LogWriter.Lane(tenant, lane.queue, lane.partition,
                    stored.subList(at, at + lane.items.size())));
            at += lane.items.size();
        }
        LogWriter.Produced produced = writer.produce(writes, answers);
        for (int i = 0; i < lanes.size(); i++) {
            lanes.get(i).verdicts = produced.verdicts().get(i);
        }
        return produced.counted();
    }

    /** The lane's answer: its base offset, the original one when the whole batch was a duplicate. */
    private void answer(Lane lane) throws Exception {
        PushFusion.Verdict first = null;
        PushFusion.Verdict failed = null;
        for (PushFusion.Verdict v : lane.verdicts.join()) {
            first = first == null ? v : first;
            if (v.status() == PushFusion.Status.FAILED && failed == null) {
                failed = v;
            }
        }
        if (failed != null) {
            Errors e = failed.retryable() ? Errors.KAFKA_STORAGE_ERROR : Errors.UNKNOWN_SERVER_ERROR;
            lane.answer.setErrorCode(e.code()).setErrorMessage(failed.error());
            return;
        }
        long base = first.offset();
        if (first.status() == PushFusion.Status.DUPLICATE) {
            Long original = first.partitionId() == null ? null
                    : reads.locate(first.partitionId(), TransactionHash.of(lane.items.get(0).transactionIdUtf8()));
            base = original == null ? -1 : original;
        }
        lane.answer.setErrorCode(Errors.NONE.code()).setBaseOffset(base);
    }
}
