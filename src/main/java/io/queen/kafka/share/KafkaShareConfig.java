package io.queen.kafka.share;

import io.smallrye.config.ConfigMapping;

/**
 * Share-group defaults and limits (Apache Kafka's broker settings of the same meaning are named on each). Defaults
 * live in {@code application.properties}; a group's own configs override the first three.
 */
@ConfigMapping(prefix = "queen.kafka.share")
public interface KafkaShareConfig {
    /** How long acquired records stay locked to their member ({@code group.share.record.lock.duration.ms}). */
    int recordLockDurationMs();

    /** Deliveries of a record before it becomes a dead letter ({@code group.share.delivery.count.limit}). */
    int deliveryCountLimit();

    /** Where a new group starts on a partition: {@code latest} or {@code earliest} ({@code share.auto.offset.reset}). */
    String autoOffsetReset();

    /** Most records in flight per partition and group ({@code group.share.partition.max.record.locks}). */
    int maxRecordLocks();

    /** A member not heard from for this long is removed ({@code group.share.session.timeout.ms}). */
    int sessionTimeoutMs();

    /** How often members heartbeat ({@code group.share.heartbeat.interval.ms}). */
    int heartbeatIntervalMs();

    /** Most members of one share group ({@code group.share.max.size}). */
    int maxSize();

    /** Most share sessions this broker holds ({@code group.share.max.share.sessions}). */
    int maxShareSessions();
}
