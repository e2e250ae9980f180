package io.queen.kafka.txn;

import io.queen.api.Input;
import io.queen.auth.Tenants;
import io.queen.background.DaemonTimer;
import io.queen.kafka.CoordinatorSql;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.KafkaStore;
import io.queen.kafka.Topics;
import io.queen.kafka.group.GroupCoordinator;
import io.queen.maintenance.MaintenanceSwitches;
import io.queen.metrics.OpsMeter;
import io.queen.push.LogWriter;
import io.queen.push.PushStore;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * The Kafka transaction coordinator: InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn,
 * TxnOffsetCommit, EndTxn, the staging of transactional Produce batches, the timeout sweep, and the admin views
 * (DescribeTransactions, ListTransactions).
 *
 * <p>A Kafka transaction is ONE PostgreSQL transaction at its end: its records and offsets are staged in
 * PostgreSQL (invisible to every reader, db/023_kafka_transactions.sql), and EndTxn(commit) pushes every staged
 * segment through {@code queen.log_push_multi_v1} (one call for all partitions), moves the staged offsets into the
 * groups' cursors and marks the transaction complete in one PostgreSQL transaction; EndTxn(abort) drops the
 * staging. The log so only ever holds committed records. A commit happens at most once: the transactional id's
 * row is locked and its state flips to CompleteCommit in the same PostgreSQL transaction as the writes, so a
 * retried EndTxn finds it complete and is answered success without writing again.
 *
 * <p>All state is in PostgreSQL, so any broker serves any transactional id. Thread-safe (stateless apart from the
 * sweep's timer); methods block on the database (the listener calls them on virtual threads).
 */
@ApplicationScoped
public class TransactionCoordinator {
    private static final Logger LOG = Logger.getLogger(TransactionCoordinator.class);
    /** Transactions aborted per sweep and statement at most (the next sweep takes the rest). */
    private static final int SWEEP_LIMIT = 100;

    private final TxnStore store;
    private final KafkaStore topics;
    private final LogWriter writer;
    private final GroupCoordinator groups;
    private final MaintenanceSwitches switches;
    private final OpsMeter meter;
    private final TxnConfig config;
    private final long maxBytes;
    private ScheduledExecutorService sweeper;

    TransactionCoordinator(TxnStore store, KafkaStore topics, LogWriter writer, GroupCoordinator groups,
            MaintenanceSwitches switches, OpsMeter meter, TxnConfig config) {
        this.store = store;
        this.topics = topics;
        this.writer = writer;
        this.groups = groups;
        this.switches = switches;
        this.meter = meter;
        this.config = config;
        this.maxBytes = config.maxBytes().asLongValue();
    }

    /** Starts the timeout sweep of this broker (every broker sweeps; rows being swept elsewhere are skipped). */
    synchronized void start() {
        if (sweeper != null) {
            return;
        }
        sweeper = DaemonTimer.every("kafka-txn-timeouts", Math.max(10, config.timeoutCheckMs()), this::sweep);
    }

    @PreDestroy
    synchronized void stop() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
    }

    private void sweep() {
        try {
            int n;
            do {
                n = store.expire(SWEEP_LIMIT, config.idExpirationMs());
                if (n > 0) {
                    LOG.infof("kafka transactions: %d open past their timeout aborted, their producers fenced", n);
                }
            } while (n == SWEEP_LIMIT);
        } catch (SQLException e) {
            LOG.warnf("kafka transaction timeout sweep failed (%s), retried at the next one", e.getSQLState());
        } catch (RuntimeException e) {
            LOG.warn("kafka transaction timeout sweep failed", e);
        }
    }

    // ---- InitProducerId ----

    /** InitProducerId for a transactional id (never null here). */
    public InitProducerIdResponseData initProducerId(KafkaCaller caller, short version, String tid, int timeoutMs,
            long pid, short epoch) {
        InitProducerIdResponseData out = new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (!validId(tid)) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeoutMs()) {
            return out.setErrorCode(Errors.INVALID_TRANSACTION_TIMEOUT.code());
        }
        TxnStore.Producer p = sql(() -> store.init(Tenants.of(caller.tenant()), tid, timeoutMs, pid, epoch));
        if (p.error() != null) {
            return out.setErrorCode(fenced(p.error(), version, 4).code());
        }
        return out.setProducerId(p.producerId()).setProducerEpoch(p.epoch());
    }

    // ---- AddPartitionsToTxn, AddOffsetsToTxn ----

    /** AddPartitionsToTxn v0-3 (v4+ are broker-to-broker batches and the implicit adding of transaction.version 2). */
    public AddPartitionsToTxnResponseData addPartitions(KafkaCaller caller, short version,
            AddPartitionsToTxnRequestData request) throws SQLException {
        UUID tenant = Tenants.of(caller.tenant());
        String tid = request.v3AndBelowTransactionalId();
        List<String> names = new ArrayList<>();
        for (AddPartitionsToTxnTopic t : request.v3AndBelowTopics()) {
            names.add(t.name());
        }
        Map<String, KafkaStore.Topic> found = new HashMap<>();
        List<String> valid = names.stream().filter(Topics::valid).toList();
        if (!valid.isEmpty()) {
            for (KafkaStore.Topic t : topics.topics(tenant, valid)) {
                found.put(t.name(), t);
            }
        }
        boolean anyUnknown = false;
        List<String> queues = new ArrayList<>();
        List<String> partitions = new ArrayList<>();
        for (AddPartitionsToTxnTopic t : request.v3AndBelowTopics()) {
            KafkaStore.Topic topic = found.get(t.name());
            for (int p : t.partitions()) {
                if (topic == null || p < 0 || p >= topic.partitions()) {
                    anyUnknown = true;
                } else {
                    queues.add(t.name());
                    partitions.add(Integer.toString(p));
                }
            }
        }
        Errors all = Errors.OPERATION_NOT_ATTEMPTED;
        if (!validId(tid)) {
            all = Errors.INVALID_REQUEST;
        } else if (!anyUnknown) {
            String e = sql(() -> store.add(tenant, tid, request.v3AndBelowProducerId(),
                    request.v3AndBelowProducerEpoch(), queues.toArray(String[]::new),
                    partitions.toArray(String[]::new), null));
            all = fenced(e, version, 2);
        }
        AddPartitionsToTxnResponseData out = new AddPartitionsToTxnResponseData();
        for (AddPartitionsToTxnTopic t : request.v3AndBelowTopics()) {
            AddPartitionsToTxnTopicResult tr = out.resultsByTopicV3AndBelow().find(t.name());
            if (tr == null) {
                tr = new AddPartitionsToTxnTopicResult().setName(t.name());
                out.resultsByTopicV3AndBelow().add(tr);
            }
            KafkaStore.Topic topic = found.get(t.name());
            for (int p : t.partitions()) {
                boolean unknown = topic == null || p < 0 || p >= topic.partitions();
                Errors e = unknown && all != Errors.INVALID_REQUEST ? Errors.UNKNOWN_TOPIC_OR_PARTITION : all;
                if (tr.resultsByPartition().find(p) == null) {
                    tr.resultsByPartition().add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p)
                            .setPartitionErrorCode(e.code()));
                }
            }
        }
        return out;
    }

    public AddOffsetsToTxnResponseData addOffsets(KafkaCaller caller, short version,
            AddOffsetsToTxnRequestData request) {
        AddOffsetsToTxnResponseData out = new AddOffsetsToTxnResponseData();
        if (!validId(request.transactionalId())) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        if (!GroupCoordinator.validGroupId(request.groupId())) {
            return out.setErrorCode(Errors.INVALID_GROUP_ID.code());
        }
        String e = sql(() -> store.add(Tenants.of(caller.tenant()), request.transactionalId(), request.producerId(),
                request.producerEpoch(), null, null, request.groupId()));
        return out.setErrorCode(fenced(e, version, 2).code());
    }

    // ---- TxnOffsetCommit ----

    public TxnOffsetCommitResponseData txnOffsetCommit(KafkaCaller caller, short version,
            TxnOffsetCommitRequestData request) {
        Errors groupError = Errors.NONE;
        if (!validId(request.transactionalId())) {
            groupError = Errors.INVALID_REQUEST;
        } else if (!GroupCoordinator.validGroupId(request.groupId())) {
            groupError = Errors.INVALID_GROUP_ID;
        } else {
            groupError = groups.validateTxnCommit(caller, request.groupId(), request.memberId(),
                    request.groupInstanceId(), request.generationIdOrMemberEpoch());
        }
        List<String> queues = new ArrayList<>();
        List<String> partitions = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : request.topics()) {
            for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions()) {
                if (Topics.valid(t.name()) && p.partitionIndex() >= 0 && p.committedOffset() >= 0
                        && !GroupCoordinator.metadataTooLarge(p.committedMetadata())) {
                    queues.add(t.name());
                    partitions.add(Integer.toString(p.partitionIndex()));
                    offsets.add(p.committedOffset());
                }
            }
        }
        Set<String> staged = new LinkedHashSet<>();
        if (groupError == Errors.NONE) {
            List<TxnStore.OffsetRow> rows = sql(() -> store.stageOffsets(Tenants.of(caller.tenant()),
                    request.transactionalId(), request.producerId(), request.producerEpoch(), request.groupId(),
                    queues.toArray(String[]::new), partitions.toArray(String[]::new), offsets.toArray(Long[]::new)));
            for (TxnStore.OffsetRow r : rows) {
                if (r.error() != null) {
                    groupError = Errors.valueOf(r.error());
                } else {
                    staged.add(r.queue() + '\u001f' + r.partition());
                }
            }
        }
        TxnOffsetCommitResponseData out = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : request.topics()) {
            TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic rt =
                    new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name());
            for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions()) {
                Errors e;
                if (groupError != Errors.NONE) {
                    e = groupError;
                } else if (p.committedOffset() < 0) {
                    e = Errors.OFFSET_OUT_OF_RANGE; // a cursor cannot stand before offset 0
                } else if (GroupCoordinator.metadataTooLarge(p.committedMetadata())) {
                    e = Errors.OFFSET_METADATA_TOO_LARGE;
                } else if (staged.contains(t.name() + '\u001f' + p.partitionIndex())) {
                    e = Errors.NONE;
                } else {
                    e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                rt.partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code()));
            }
            out.topics().add(rt);
        }
        return out;
    }

    // ---- Produce ----

    /**
     * Stages the batches of one transactional Produce of producer (pid, epoch); the Kafka error of each batch, in
     * order (NONE = staged, or staged before by an earlier try of the same batch).
     */
    public List<Errors> stage(UUID tenant, String tid, long pid, short epoch, List<TxnStore.StagedBatch> batches)
            throws SQLException {
        List<Errors> out = new ArrayList<>(batches.size());
        if (!validId(tid)) {
            batches.forEach(b -> out.add(Errors.INVALID_TXN_STATE));
            return out;
        }
        for (String e : store.stage(tenant, tid, pid, epoch, maxBytes, batches)) {
            out.add(e == null ? Errors.NONE : Errors.valueOf(e));
        }
        return out;
    }

    /** The error a batch over the staging limit gets (TRANSACTION_ABORTABLE), with the limit it passed. */
    public String limitMessage() {
        return "the transaction would stage more than " + maxBytes + " bytes (QUEEN_KAFKA_TXN_MAX_BYTES)";
    }

    // ---- EndTxn ----

    /** EndTxn v0-4 (v5, which answers a new epoch, belongs to transaction.version 2). */
    public EndTxnResponseData endTxn(KafkaCaller caller, short version, EndTxnRequestData request) throws Exception {
        EndTxnResponseData out = new EndTxnResponseData();
        if (!validId(request.transactionalId())) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        UUID tenant = Tenants.of(caller.tenant());
        boolean commit = request.committed();
        if (commit) {
            switches.awaitKnown();
            if (switches.pushMaintenance()) {
                // the log takes no writes during push maintenance: the client retries the commit
                return out.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
            }
        }
        LogWriter.InTransaction log;
        try (Connection c = store.transaction()) {
            log = writer.inTransaction(c, tenant);
            try {
                String[] end = store.end(c, tenant, request.transactionalId(), request.producerId(),
                        request.producerEpoch(), commit);
                if (end[0] != null || "done".equals(end[1])) {
                    c.rollback();
                    return out.setErrorCode(fenced(end[0], version, 2).code());
                }
                if (commit) {
                    write(log, store.records(c, tenant, request.producerId()));
                }
                store.finish(c, tenant, request.producerId(), commit);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            LOG.warnf("kafka EndTxn: database call failed (%s); answered COORDINATOR_NOT_AVAILABLE", e.getSQLState());
            LOG.debug("database failure", e);
            return out.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
        log.committed();
        for (String q : log.queues()) {
            meter.queue(tenant, q).increment(OpsMeter.TRANSACTIONS);
        }
        return out.setErrorCode(Errors.NONE.code());
    }

    /**
     * Pushes the staged segments in one {@code log_push_multi_v1} call in the EndTxn's transaction. The probe
     * against the dedup window is skipped for partitions that exist ({@link PushStore.SegmentWrite#unique}): a
     * staged record's transaction id {@code kafka:<producerId>:<epoch>:<sequence>} is unique by construction
     * (producer ids are never reused, a batch is staged once per sequence) and the commit itself happens once (the
     * row lock and state), so the probe could find nothing; it would cost a scan of the partition's whole window
     * per commit.
     */
    private void write(LogWriter.InTransaction log, List<TxnStore.StoredBatch> batches) throws SQLException {
        if (batches.isEmpty()) {
            return;
        }
        List<PushStore.SegmentWrite> writes = new ArrayList<>(batches.size());
        for (TxnStore.StoredBatch b : batches) {
            writes.add(PushStore.SegmentWrite.unique(log.tenant(), b.queue(), b.partition(), b.count(), b.hashes(),
                    b.partitionId(), b.blob()));
        }
        PushStore.SegmentResult[] results = log.writePacked(writes);
        for (PushStore.SegmentResult r : results) {
            if (r.duplicate()) {
                // cannot happen (see above); the transaction stays open and the client is told to retry
                throw new SQLException("a staged record of the transaction is already in partition "
                        + r.partitionId(), "40001");
            }
        }
    }

    // ---- DescribeTransactions, ListTransactions ----

    public DescribeTransactionsResponseData describe(KafkaCaller caller, DescribeTransactionsRequestData request) {
        List<String> ids = request.transactionalIds().stream().filter(TransactionCoordinator::validId).toList();
        Map<String, TxnStore.Listed> found = new HashMap<>();
        if (!ids.isEmpty()) {
            for (TxnStore.Listed l : sql(() -> store.list(Tenants.of(caller.tenant()), ids))) {
                found.put(l.transactionalId(), l);
            }
        }
        DescribeTransactionsResponseData out = new DescribeTransactionsResponseData();
        for (String id : request.transactionalIds()) {
            TxnStore.Listed l = found.get(id);
            DescribeTransactionsResponseData.TransactionState s =
                    new DescribeTransactionsResponseData.TransactionState().setTransactionalId(id);
            if (l == null) {
                out.transactionStates().add(s.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code()));
                continue;
            }
            s.setTransactionState(l.state()).setTransactionTimeoutMs(l.timeoutMs())
                    .setTransactionStartTimeMs(l.startedAt() == null ? -1 : l.startedAt().toInstant().toEpochMilli())
                    .setProducerId(l.producerId()).setProducerEpoch(l.epoch());
            for (int i = 0; i < l.queues().size(); i++) {
                DescribeTransactionsResponseData.TopicData td = s.topics().find(l.queues().get(i));
                if (td == null) {
                    td = new DescribeTransactionsResponseData.TopicData().setTopic(l.queues().get(i));
                    s.topics().add(td);
                }
                td.partitions().add(Integer.parseInt(l.partitions().get(i)));
            }
            out.transactionStates().add(s);
        }
        return out;
    }

    public ListTransactionsResponseData list(KafkaCaller caller, ListTransactionsRequestData request) {
        ListTransactionsResponseData out = new ListTransactionsResponseData();
        Set<String> states = Set.of("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit",
                "CompleteAbort", "Dead", "PrepareEpochFence");
        for (String f : request.stateFilters()) {
            if (!states.contains(f)) {
                out.unknownStateFilters().add(f);
            }
        }
        Pattern pattern;
        try {
            pattern = request.transactionalIdPattern() == null || request.transactionalIdPattern().isEmpty() ? null
                    : Pattern.compile(request.transactionalIdPattern());
        } catch (RuntimeException e) {
            return out.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code());
        }
        long now = System.currentTimeMillis();
        for (TxnStore.Listed l : sql(() -> store.list(Tenants.of(caller.tenant()), null))) {
            boolean keep = (request.stateFilters().isEmpty() || request.stateFilters().contains(l.state()))
                    && (request.producerIdFilters().isEmpty() || request.producerIdFilters().contains(l.producerId()))
                    && (request.durationFilter() < 0 || (l.startedAt() != null
                            && now - l.startedAt().toInstant().toEpochMilli() >= request.durationFilter()))
                    && (pattern == null || pattern.matcher(l.transactionalId()).matches());
            if (keep) {
                out.transactionStates().add(new ListTransactionsResponseData.TransactionState()
                        .setTransactionalId(l.transactionalId()).setProducerId(l.producerId())
                        .setTransactionState(l.state()));
            }
        }
        return out.setErrorCode(Errors.NONE.code());
    }

    // ---- helpers ----

    /** A transactional id Queen keeps: the rules of every name (at most 255 characters, no control characters). */
    static boolean validId(String id) {
        return id != null && !id.isEmpty() && Input.isValid(id, Input.MAX_NAME_CHARS);
    }

    /**
     * The Kafka error named {@code name} (null = NONE); PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH below the
     * version that introduced it ({@code fencedFrom}), as Apache Kafka answers older clients.
     */
    static Errors fenced(String name, short version, int fencedFrom) {
        if (name == null) {
            return Errors.NONE;
        }
        Errors e = Errors.valueOf(name);
        return e == Errors.PRODUCER_FENCED && version < fencedFrom ? Errors.INVALID_PRODUCER_EPOCH : e;
    }

    /** A database call whose failure the client should retry: COORDINATOR_NOT_AVAILABLE, the cause in the log. */
    private static <T> T sql(CoordinatorSql.Call<T> call) {
        return CoordinatorSql.retriable("transaction", call);
    }
}
