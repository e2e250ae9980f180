package io.queen.kafka;

import io.queen.compaction.CompactionSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;

/**
 * The topic configs a topic keeps: {@code retention.ms} is the queue's retention (in whole seconds, rounded up;
 * -1 = kept until deleted); {@code cleanup.policy} ({@code delete}, {@code compact} or both) decides whether the
 * compaction duty compacts its partitions ({@code io.queen.compaction}), under the compaction settings
 * ({@code min.compaction.lag.ms}, {@code max.compaction.lag.ms}, {@code delete.retention.ms},
 * {@code min.cleanable.dirty.ratio}: {@link CompactionSettings}). {@code segment.ms} is met by construction (a
 * segment is sealed by the write that makes it) and only checked. Every other config is accepted and ignored at
 * creation (docs/kafka.md). Stateless.
 */
final class TopicConfigs {
    static final String RETENTION_MS = "retention.ms";
    static final String CLEANUP_POLICY = "cleanup.policy";
    static final String DELETE = CompactionSettings.DELETE;
    static final String COMPACT = CompactionSettings.COMPACT;
    static final String SEGMENT_MS = "segment.ms";

    /**
     * What a CreateTopics asks for: retention in seconds (0 = none), the normalized cleanup policy and the
     * compaction settings it names (checked values).
     */
    record Requested(int retentionSeconds, String cleanupPolicy, Map<String, String> compaction) {
        Requested(int retentionSeconds, String cleanupPolicy) {
            this(retentionSeconds, cleanupPolicy, Map.of());
        }
    }

    /** What an alter changes on one topic: a null field is left as it is; a null compaction value is the default. */
    static final class Change {
        Integer retentionSeconds;
        String cleanupPolicy;
        final Map<String, String> compaction = new LinkedHashMap<>();

        /** Sets {@code name} to {@code value} (null: back to its default); INVALID_CONFIG for a bad one. */
        void set(String name, String value) {
            switch (name) {
                case RETENTION_MS -> retentionSeconds = retentionSeconds(value == null ? "-1" : value);
                case CLEANUP_POLICY -> cleanupPolicy = value == null ? DELETE : cleanupPolicy(value);
                case SEGMENT_MS -> segmentMs(value);
                default -> {
                    if (!CompactionSettings.known(name)) {
                        throw new InvalidConfigurationException("Queen topics take retention.ms, cleanup.policy, "
                                + String.join(", ", CompactionSettings.NAMES) + " and segment.ms, not " + name);
                    }
                    compaction.put(name, value == null ? null : compactionSetting(name, value));
                }
            }
        }
    }

    private TopicConfigs() {}

    static Requested requested(CreatableTopicConfigCollection configs) {
        int seconds = 0;
        String policy = DELETE;
        Map<String, String> compaction = new LinkedHashMap<>();
        for (CreatableTopicConfig c : configs) {
            if (c.value() == null) {
                continue;
            }
            if (CLEANUP_POLICY.equals(c.name())) {
                policy = cleanupPolicy(c.value());
            } else if (RETENTION_MS.equals(c.name())) {
                seconds = retentionSeconds(c.value());
            } else if (SEGMENT_MS.equals(c.name())) {
                segmentMs(c.value());
            } else if (CompactionSettings.known(c.name())) {
                compaction.put(c.name(), compactionSetting(c.name(), c.value()));
            }
        }
        return new Requested(seconds, policy, compaction);
    }

    /**
     * A cleanup.policy value, a list of {@code delete} and {@code compact} (Kafka's), normalized to
     * {@code delete}, {@code compact} or {@code compact,delete}; anything else is an INVALID_CONFIG.
     */
    static String cleanupPolicy(String value) {
        try {
            return CompactionSettings.policy(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }

    static String compactionSetting(String name, String value) {
        try {
            return CompactionSettings.check(name, value);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }

    /** segment.ms is checked (a positive number, as Kafka's) and otherwise met already: see the class comment. */
    static void segmentMs(String value) {
        try {
            if (value == null || Long.parseLong(value.trim()) >= 1) {
                return;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new InvalidConfigurationException("segment.ms must be a number of milliseconds of at least 1");
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
