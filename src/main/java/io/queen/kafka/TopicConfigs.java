package io.queen.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;

/**
 * The topic configs a topic keeps: {@code retention.ms} is the queue's retention (in whole seconds, rounded up;
 * -1 = kept until deleted); {@code cleanup.policy} ({@code delete}, {@code compact} or both) is kept and described
 * back, but Queen compacts nothing: a compacted topic keeps every record (a restoring Kafka Streams store reads
 * its whole changelog). Every other config is accepted and ignored (docs/kafka.md). Stateless.
 */
final class TopicConfigs {
    static final String RETENTION_MS = "retention.ms";
    static final String CLEANUP_POLICY = "cleanup.policy";
    static final String DELETE = "delete";
    static final String COMPACT = "compact";

    /** What a CreateTopics asks for: retention in seconds (0 = none) and the normalized cleanup policy. */
    record Requested(int retentionSeconds, String cleanupPolicy) {
    }

    private TopicConfigs() {}

    static Requested requested(CreatableTopicConfigCollection configs) {
        int seconds = 0;
        String policy = DELETE;
        for (CreatableTopicConfig c : configs) {
            if (CLEANUP_POLICY.equals(c.name()) && c.value() != null) {
                policy = cleanupPolicy(c.value());
            }
            if (RETENTION_MS.equals(c.name()) && c.value() != null) {
                seconds = retentionSeconds(c.value());
            }
        }
        return new Requested(seconds, policy);
    }

    /**
     * A cleanup.policy value, a list of {@code delete} and {@code compact} (Kafka's), normalized to
     * {@code delete}, {@code compact} or {@code compact,delete}; anything else is an INVALID_CONFIG.
     */
    static String cleanupPolicy(String value) {
        boolean delete = false;
        boolean compact = false;
        List<String> unknown = new ArrayList<>();
        for (String item : value.split(",", -1)) {
            switch (item.trim()) {
                case DELETE -> delete = true;
                case COMPACT -> compact = true;
                default -> unknown.add(item.trim());
            }
        }
        if (!unknown.isEmpty() || (!delete && !compact)) {
            throw new InvalidConfigurationException("cleanup.policy must be delete, compact or compact,delete");
        }
        return compact && delete ? COMPACT + "," + DELETE : compact ? COMPACT : DELETE;
    }

    static int retentionSeconds(String ms) {
        long v;
        try {
            v = Long.parseLong(ms.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException("retention.ms must be a number of milliseconds");
        }
        if (v < -1) {
            throw new InvalidConfigurationException("retention.ms must be -1 or at least 0");
        }
        if (v <= 0) {
            return 0;
        }
        return (int) Math.min(Integer.MAX_VALUE, (v + 999) / 1000);
    }
}
