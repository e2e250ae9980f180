package io.queen.queue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/** SQL calls of the {@code queue} feature. Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class QueueStore {
    private final AgroalDataSource ds;

    QueueStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    public record ConfiguredQueue(UUID id, String name, String namespace, String task, ObjectNode options) {
    }

    public ConfiguredQueue configure(UUID tenant, String name, String namespace, String task, ObjectNode options)
            throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM queen.configure_queue_v1(?, ?, ?, ?, ?::jsonb)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setString(3, namespace);
            ps.setString(4, task);
            ps.setString(5, options.toString());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new ConfiguredQueue(rs.getObject("id", UUID.class), rs.getString("name"),
                        rs.getString("namespace"), rs.getString("task"), QueueOptions.fromRow(rs));
            }
        }
    }

    /**
     * Deletes a queue with everything it owns ({@code queen.delete_queue_v1}: sidecar and dead-letter rows
     * explicitly, the rest by cascade). Returns whether it existed.
     */
    public boolean delete(UUID tenant, String name) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.delete_queue_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
