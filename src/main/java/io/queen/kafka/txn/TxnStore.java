package io.queen.kafka.txn;

import io.agroal.api.AgroalDataSource;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of Kafka transactions (db/023_kafka_transactions.sql). Errors come back as the names of Kafka errors
 * (null = none). Thread-safe (stateless); {@link #transaction} hands out a connection for EndTxn's one
 * PostgreSQL transaction.
 */
@ApplicationScoped
public class TxnStore {
    private final SqlCalls sql;
    private final AgroalDataSource ds;

    TxnStore(SqlCalls sql, AgroalDataSource ds) {
        this.sql = sql;
        this.ds = ds;
    }

    /** A producer identity, or the error that refused it. */
    public record Producer(String error, long producerId, short epoch) {
    }

    /** One record batch to stage: a packed segment of {@code count} records, {@code size} bytes as sent. */
    public record StagedBatch(String queue, String partition, int baseSequence, int count, long size, byte[] hashes,
            byte[] blob) {
    }

    /** A staged batch read back at commit; {@code partitionId} null when the partition was never written. */
    record StoredBatch(String queue, String partition, UUID partitionId, int count, byte[] hashes, byte[] blob) {
    }

    /** A transactional id as DescribeTransactions / ListTransactions show it. */
    record Listed(String transactionalId, long producerId, short epoch, String state, int timeoutMs,
            OffsetDateTime startedAt, List<String> queues, List<String> partitions) {
    }

    Producer init(UUID tenant, String tid, int timeoutMs, long pid, short epoch) throws SQLException {
        return sql.one("SELECT error, producer_id, epoch FROM queen.kafka_txn_init_v1(?, ?, ?, ?, ?)",
                rs -> new Producer(rs.getString(1), rs.getLong(2), rs.getShort(3)),
                tenant, tid, timeoutMs, pid, (int) epoch);
    }

    /** AddPartitionsToTxn ({@code group} null) or AddOffsetsToTxn ({@code queues} null). */
    String add(UUID tenant, String tid, long pid, short epoch, String[] queues, String[] partitions, String group)
            throws SQLException {
        return sql.one("SELECT queen.kafka_txn_add_v1(?, ?, ?, ?, ?::text[], ?::text[], ?::text)",
                rs -> rs.getString(1), tenant, tid, pid, (int) epoch,
                queues == null ? new SqlCalls.NullOf(java.sql.Types.ARRAY) : queues,
                partitions == null ? new SqlCalls.NullOf(java.sql.Types.ARRAY) : partitions,
                group == null ? SqlCalls.NULL_TEXT : group);
    }

    /** The error of each batch, in order (null = staged). */
    public List<String> stage(UUID tenant, String tid, long pid, short epoch, long maxBytes, List<StagedBatch> batches)
            throws SQLException {
        int n = batches.size();
        String[] queues = new String[n];
        String[] partitions = new String[n];
        Integer[] seqs = new Integer[n];
        Integer[] counts = new Integer[n];
        Long[] sizes = new Long[n];
        byte[][] hashes = new byte[n][];
        byte[][] blobs = new byte[n][];
        for (int i = 0; i < n; i++) {
            StagedBatch b = batches.get(i);
            queues[i] = b.queue();
            partitions[i] = b.partition();
            seqs[i] = b.baseSequence();
            counts[i] = b.count();
            sizes[i] = b.size();
            hashes[i] = b.hashes();
            blobs[i] = b.blob();
        }
        return sql.list("SELECT error FROM queen.kafka_txn_stage_v1(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY ord",
                rs -> rs.getString(1), tenant, tid, pid, (int) epoch, maxBytes, queues, partitions, seqs, counts,
                sizes, hashes, blobs);
    }

    /** Rows of a TxnOffsetCommit: one with an error only, or the staged (queue, partition) entries. */
    record OffsetRow(String error, String queue, String partition) {
    }

    List<OffsetRow> stageOffsets(UUID tenant, String tid, long pid, short epoch, String group, String[] queues,
            String[] partitions, Long[] offsets) throws SQLException {
        return sql.list("SELECT error, queue_name, partition_name"
                        + " FROM queen.kafka_txn_stage_offsets_v1(?, ?, ?, ?, ?, ?, ?, ?)",
                rs -> new OffsetRow(rs.getString(1), rs.getString(2), rs.getString(3)),
                tenant, tid, pid, (int) epoch, group, queues, partitions, offsets);
    }

    /** A connection in a transaction of its own (autocommit off); the caller commits or rolls back and closes. */
    Connection transaction() throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /** EndTxn's first step, on {@code c}: {error, action} ({@code run}, {@code done} or null). */
    String[] end(Connection c, UUID tenant, String tid, long pid, short epoch, boolean commit) throws SQLException {
        return SqlCalls.on(c).one("SELECT error, action FROM queen.kafka_txn_end_v1(?, ?, ?, ?, ?)",
                rs -> new String[] {rs.getString(1), rs.getString(2)}, tenant, tid, pid, (int) epoch, commit);
    }

    List<StoredBatch> records(Connection c, UUID tenant, long pid) throws SQLException {
        return SqlCalls.on(c).list("SELECT queue_name, partition_name, partition_id, record_count, hashes, blob"
                        + " FROM queen.kafka_txn_records_v1(?, ?)",
                rs -> new StoredBatch(rs.getString(1), rs.getString(2), rs.getObject(3, UUID.class), rs.getInt(4),
                        rs.getBytes(5), rs.getBytes(6)), tenant, pid);
    }

    void finish(Connection c, UUID tenant, long pid, boolean commit) throws SQLException {
        SqlCalls.on(c).execute("SELECT queen.kafka_txn_finish_v1(?, ?, ?)", tenant, pid, commit);
    }

    /** Aborts up to {@code limit} timed-out transactions (fencing their producers); how many it aborted. */
    int expire(int limit, long idExpirationMs) throws SQLException {
        return (int) sql.number("SELECT queen.kafka_txn_expire_v1(?, ?)", limit, idExpirationMs);
    }

    List<Listed> list(UUID tenant, List<String> tids) throws SQLException {
        return sql.list("SELECT transactional_id, producer_id, epoch, state, timeout_ms, started_at, queues,"
                        + " partitions FROM queen.kafka_txn_list_v1(?, ?)",
                rs -> new Listed(rs.getString(1), rs.getLong(2), rs.getShort(3), rs.getString(4), rs.getInt(5),
                        rs.getObject(6, OffsetDateTime.class), SqlCalls.strings(rs.getArray(7)),
                        SqlCalls.strings(rs.getArray(8))),
                tenant, tids == null ? new SqlCalls.NullOf(java.sql.Types.ARRAY) : tids.toArray(String[]::new));
    }
}
