package io.queen.kafka;

import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** SQL calls of the Kafka listener (db/021_kafka.sql, db/027_kafka_admin.sql). Thread-safe (stateless). */
@ApplicationScoped
public class KafkaStore {
    private final SqlCalls sql;

    KafkaStore(SqlCalls sql) {
        this.sql = sql;
    }

    /**
     * A topic: a queue with its partition count and the cleanup.policy it was created with ({@code delete},
     * {@code compact} or {@code compact,delete}); the queue's id is the topic id.
     */
    public record Topic(String name, UUID id, int partitions, int retentionSeconds, boolean retentionEnabled,
            String cleanupPolicy) {
    }

    /** What a DeleteRecords did to one partition: {@code ok}, {@code unknown} or {@code out_of_range}. */
    public record DeletedRecords(String status, long lowWatermark) {
    }

    /** Watermarks of one partition: -1, -1 for an unknown topic. */
    public record Watermarks(long logStart, long high) {
    }

    /** The tenant's topics, all ({@code names} null) or the named ones that exist, by name. */
    public List<Topic> topics(UUID tenant, List<String> names) throws SQLException {
        return sql.list("SELECT name, queue_id, partitions, retention_seconds, retention_enabled, cleanup_policy"
                        + " FROM queen.kafka_topics_v1(?, ?::text[])",
                rs -> new Topic(rs.getString(1), rs.getObject(2, UUID.class), rs.getInt(3), rs.getInt(4),
                        rs.getBoolean(5), rs.getString(6)),
                tenant, names == null ? null : names.toArray(new String[0]));
    }

    /** Creates a topic with its queue's dedup window; false when a queue of that name exists already. */
    public boolean create(UUID tenant, String name, int partitions, int retentionSeconds, String cleanupPolicy,
            int dedupWindowSeconds) throws SQLException {
        return sql.flag("SELECT queen.kafka_create_topic_v1(?, ?, ?, ?, ?, ?)", tenant, name, partitions,
                retentionSeconds, cleanupPolicy, dedupWindowSeconds);
    }

    /** Deletes the whole segments of a partition below {@code offset} (-1 = the high watermark). */
    public DeletedRecords deleteRecords(UUID tenant, String queue, String partition, long offset)
            throws SQLException {
        return sql.one("SELECT status, low_watermark FROM queen.kafka_delete_records_v1(?, ?, ?, ?)",
                rs -> new DeletedRecords(rs.getString(1), rs.getLong(2)), tenant, queue, partition, offset);
    }

    public List<Watermarks> watermarks(UUID tenant, String[] queues, String[] partitions) throws SQLException {
        return sql.list("SELECT log_start, high_watermark FROM queen.kafka_watermarks_v1(?, ?, ?)",
                rs -> new Watermarks(rs.getLong(1), rs.getLong(2)), tenant, queues, partitions);
    }

    /** The first offset committed at or after {@code at} with its commit time in ms, or null when none is. */
    public long[] offsetForTime(UUID tenant, String queue, String partition, Instant at) throws SQLException {
        return sql.one("SELECT base_offset, created_at FROM queen.kafka_offset_for_time_v1(?, ?, ?, ?)",
                rs -> new long[] {rs.getLong(1), rs.getObject(2, OffsetDateTime.class).toInstant().toEpochMilli()},
                tenant, queue, partition, at);
    }

    /** Sets a topic's retention (0 = off); false for an unknown topic. */
    public boolean setRetention(UUID tenant, String name, int retentionSeconds) throws SQLException {
        return sql.flag("SELECT queen.kafka_set_retention_v1(?, ?, ?)", tenant, name, retentionSeconds);
    }

    /** What a CreatePartitions did to one topic: {@code ok}, {@code not_increase} or {@code unknown}. */
    public record Grown(String status, int current) {
    }

    /** The stored bytes of one written Kafka partition (its segments, compressed). */
    public record PartitionSize(String topic, int partition, long bytes) {
    }

    /** A producer with an open transaction that added a partition. */
    public record PartitionProducer(long producerId, short epoch, int lastSequence, long lastTimestampMs) {
    }

    /** Grows a topic to {@code count} partitions (never shrinks it); with {@code validateOnly} changes nothing. */
    public Grown createPartitions(UUID tenant, String name, int count, boolean validateOnly) throws SQLException {
        return sql.one("SELECT status, current FROM queen.kafka_create_partitions_v1(?, ?, ?, ?)",
                rs -> new Grown(rs.getString(1), rs.getInt(2)), tenant, name, count, validateOnly);
    }

    /** The sizes of the written Kafka partitions of the tenant's topics, all ({@code names} null) or the named. */
    public List<PartitionSize> partitionSizes(UUID tenant, List<String> names) throws SQLException {
        return sql.list("SELECT queue_name, partition_index, size_bytes"
                        + " FROM queen.kafka_partition_sizes_v1(?, ?::text[])",
                rs -> new PartitionSize(rs.getString(1), rs.getInt(2), rs.getLong(3)),
                tenant, names == null ? null : names.toArray(new String[0]));
    }

    /** The producers whose open transaction added a partition, by producer id. */
    public List<PartitionProducer> partitionProducers(UUID tenant, String queue, String partition)
            throws SQLException {
        return sql.list("SELECT producer_id, epoch, last_sequence, last_at"
                        + " FROM queen.kafka_partition_producers_v1(?, ?, ?)",
                rs -> new PartitionProducer(rs.getLong(1), rs.getShort(2), rs.getInt(3),
                        rs.getObject(4, OffsetDateTime.class).toInstant().toEpochMilli()),
                tenant, queue, partition);
    }

    /** A producer id no other InitProducerId got, on any broker. */
    public long nextProducerId() throws SQLException {
        return sql.number("SELECT nextval('queen.kafka_producer_ids')");
    }
}
