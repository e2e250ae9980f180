package io.queen.queue;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/** SQL calls of the {@code queue} feature. Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class QueueStore {
    @Inject SqlCalls sql;

    public record ConfiguredQueue(UUID id, String name, String namespace, String task, ObjectNode options) {
    }

    public ConfiguredQueue configure(UUID tenant, String name, String namespace, String task, ObjectNode options)
            throws SQLException {
        return sql.one("SELECT * FROM queen.configure_queue_v1(?, ?, ?, ?, ?::jsonb)",
                rs -> new ConfiguredQueue(rs.getObject("id", UUID.class), rs.getString("name"),
                        rs.getString("namespace"), rs.getString("task"), QueueOptions.fromRow(rs)),
                tenant, name, namespace, task, options.toString());
    }

    /**
     * Deletes a queue with everything it owns ({@code queen.delete_queue_v1}: sidecar and dead-letter rows
     * explicitly, the rest by cascade). Returns whether it existed.
     */
    public boolean delete(UUID tenant, String name) throws SQLException {
        return sql.flag("SELECT queen.delete_queue_v1(?, ?)", tenant, name);
    }

    /** What a purge removed: messages, and whether the queue exists at all. */
    public record Purged(boolean existed, int partitions, long messages) {
    }

    /**
     * Removes every message written so far from each partition of the queue, one partition and at most
     * {@code stepSegments} segments per call ({@code queen.log_retention_step_v1} with no time limit, audited as
     * {@code purge}): the same watermark move retention does, so cursors, dead letters and the dedup window stay.
     */
    public Purged purge(UUID tenant, String name, int stepSegments) throws SQLException {
        boolean existed = sql.flag("SELECT queen.log_queue_exists_v1(?, ?)", tenant, name);
        List<UUID> partitions = partitionIds(tenant, name);
        long messages = 0;
        for (UUID pid : partitions) {
            // one call per step: each holds one partition row lock for one bounded delete, as retention does
            Step step;
            do {
                step = sql.one("SELECT messages, done FROM queen.log_retention_step_v1(?, 'infinity'::timestamptz,"
                        + " NULL, ?, 'purge')", rs -> new Step(rs.getLong(1), rs.getBoolean(2)), pid, stepSegments);
                messages += step.messages();
            } while (!step.done());
        }
        return new Purged(existed, partitions.size(), messages);
    }

    private record Step(long messages, boolean done) {
    }

    /** The ids of the tenant's queue's partitions (none for an unknown queue). */
    public List<UUID> partitionIds(UUID tenant, String name) throws SQLException {
        return sql.list("SELECT partition_id FROM queen.queue_partition_ids_v1(?, ?)",
                rs -> rs.getObject(1, UUID.class), tenant, name);
    }
}
