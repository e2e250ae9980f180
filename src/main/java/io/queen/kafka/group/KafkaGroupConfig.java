package io.queen.kafka.group;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;

/**
 * Limits and timings of Kafka consumer groups (Apache Kafka's broker settings of the same meaning are named on each).
 * Defaults live in {@code application.properties}.
 */
@ConfigMapping(prefix = "queen.kafka.group")
public interface KafkaGroupConfig {
    /**
     * How long the first rebalance of an empty group waits for more members to join, extended by each joining member
     * up to the members' rebalance timeout ({@code group.initial.rebalance.delay.ms}).
     */
    int initialRebalanceDelayMs();

    /** Smallest session timeout a member may ask for ({@code group.min.session.timeout.ms}). */
    int minSessionTimeoutMs();

    /** Largest session timeout a member may ask for ({@code group.max.session.timeout.ms}). */
    int maxSessionTimeoutMs();

    /** Most members (joined or awaiting their second join) in one group ({@code group.max.size}). */
    int maxSize();

    /**
     * How long a consumer-protocol member may go without a heartbeat before it is evicted
     * ({@code group.consumer.session.timeout.ms}).
     */
    int consumerSessionTimeoutMs();

    /** How often consumer-protocol members are told to heartbeat ({@code group.consumer.heartbeat.interval.ms}). */
    int consumerHeartbeatIntervalMs();

    /**
     * Most bytes the coordinator keeps for one member, in memory and in its group's saved state: a classic member's
     * protocols (names and metadata, from its JoinGroup) and its assignment (from the leader's SyncGroup) each, a
     * consumer-protocol or share member's subscription (topic names and regex); names count a byte a character.
     * Apache Kafka bounds the same by the largest record of {@code __consumer_offsets}.
     */
    MemorySize maxMemberBytes();
}
