package io.queen.kafka;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** SQL calls of the Kafka listener (db/020_kafka.sql). Thread-safe (stateless; one pooled connection per call). */
@ApplicationScoped
public class KafkaStore {
    private final AgroalDataSource ds;

    KafkaStore(AgroalDataSource ds) {
        this.ds = ds;
    }

    /** A topic: a queue with its partition count; the queue's id is the topic id. */
    public record Topic(String name, UUID id, int partitions, int retentionSeconds, boolean retentionEnabled) {
    }

    /** Watermarks of one partition: -1, -1 for an unknown topic. */
    public record Watermarks(long logStart, long high) {
    }

    /** The tenant's topics, all ({@code names} null) or the named ones that exist, by name. */
    public List<Topic> topics(UUID tenant, List<String> names) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT name, queue_id, partitions, retention_seconds, retention_enabled"
                        + " FROM queen.kafka_topics_v1(?, ?)")) {
            ps.setObject(1, tenant);
            ps.setArray(2, names == null ? null : c.createArrayOf("text", names.toArray()));
            List<Topic> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Topic(rs.getString(1), rs.getObject(2, UUID.class), rs.getInt(3), rs.getInt(4),
                            rs.getBoolean(5)));
                }
            }
            return out;
        }
    }

    /** Creates a topic; false when a queue of that name exists already. */
    public boolean create(UUID tenant, String name, int partitions, int retentionSeconds) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.kafka_create_topic_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setInt(3, partitions);
            ps.setInt(4, retentionSeconds);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    public List<Watermarks> watermarks(UUID tenant, String[] queues, String[] partitions) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT log_start, high_watermark FROM queen.kafka_watermarks_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setArray(2, c.createArrayOf("text", queues));
            ps.setArray(3, c.createArrayOf("text", partitions));
            List<Watermarks> out = new ArrayList<>(queues.length);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Watermarks(rs.getLong(1), rs.getLong(2)));
                }
            }
            return out;
        }
    }

    /** The first offset committed at or after {@code at} with its commit time in ms, or null when none is. */
    public long[] offsetForTime(UUID tenant, String queue, String partition, Instant at) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT base_offset, created_at FROM queen.kafka_offset_for_time_v1(?, ?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, queue);
            ps.setString(3, partition);
            ps.setObject(4, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new long[] {rs.getLong(1), rs.getObject(2, OffsetDateTime.class).toInstant().toEpochMilli()};
            }
        }
    }

    /** Sets a topic's retention (0 = off); false for an unknown topic. */
    public boolean setRetention(UUID tenant, String name, int retentionSeconds) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.kafka_set_retention_v1(?, ?, ?)")) {
            ps.setObject(1, tenant);
            ps.setString(2, name);
            ps.setInt(3, retentionSeconds);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** A producer id no other InitProducerId got, on any broker. */
    public long nextProducerId() throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT nextval('queen.kafka_producer_ids')")) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
