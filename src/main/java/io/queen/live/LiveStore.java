package io.queen.live;

import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * The live figures' SQL (db/020_live.sql): a broker's publication, the fresh publications, a group's live leases.
 * Thread-safe (stateless; one pooled connection per call).
 */
@ApplicationScoped
public class LiveStore {
    /** One broker's row: its identity, how old the row is, and the sample it published (JSON text). */
    public record BrokerRow(UUID brokerId, String hostname, int workerId, int port, Instant startedAt, long ageMs,
            String sample) {
    }

    /** A live lease of a group on one partition. */
    public record Lease(String queue, String partition, UUID partitionId, String leaseId, Instant acquiredAt,
            Instant expiresAt, long committed, Long batchEnd) {
    }

    private final SqlCalls sql;

    LiveStore(SqlCalls sql) {
        this.sql = sql;
    }

    public void publish(UUID broker, String hostname, int workerId, int port, Instant started, String sampleJson,
            int keepSeconds) throws SQLException {
        sql.execute("SELECT queen.live_publish_v1(?, ?, ?, ?, ?, ?::jsonb, ?)", broker, hostname, workerId, port,
                started, sampleJson, keepSeconds);
    }

    public List<BrokerRow> fresh(int freshSeconds) throws SQLException {
        return sql.list("SELECT broker_id, hostname, worker_id, port, started_at, age_ms, sample::text"
                + " FROM queen.live_read_v1(?)",
                rs -> new BrokerRow(rs.getObject(1, UUID.class), rs.getString(2), rs.getInt(3), rs.getInt(4),
                        rs.getObject(5, OffsetDateTime.class).toInstant(), rs.getLong(6), rs.getString(7)),
                freshSeconds);
    }

    public List<Lease> groupLeases(UUID tenant, String group) throws SQLException {
        return sql.list("SELECT queue_name, partition_name, partition_id, lease_id, acquired_at, expires_at, committed,"
                + " batch_end FROM queen.live_group_leases_v1(?, ?)", rs -> {
                    OffsetDateTime acquired = rs.getObject(5, OffsetDateTime.class);
                    return new Lease(rs.getString(1), rs.getString(2), rs.getObject(3, UUID.class), rs.getString(4),
                            acquired == null ? null : acquired.toInstant(),
                            rs.getObject(6, OffsetDateTime.class).toInstant(), rs.getLong(7),
                            SqlCalls.longOrNull(rs, 8));
                }, tenant, group);
    }
}
