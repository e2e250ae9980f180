package io.queen.queue;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
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
}
