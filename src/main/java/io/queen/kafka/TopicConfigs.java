package io.queen.kafka;

import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;

/**
 * The topic configs that map onto queue options: {@code retention.ms} is the queue's retention (in whole seconds,
 * rounded up; -1 = kept until deleted); {@code cleanup.policy=compact} is refused (Queen does not compact); every
 * other config is accepted and ignored (docs/kafka.md). Stateless.
 */
final class TopicConfigs {
    static final String RETENTION_MS = "retention.ms";

    private TopicConfigs() {}

    /** The queue retention the configs ask for, in seconds; 0 = none. */
    static int retentionSeconds(CreatableTopicConfigCollection configs) {
        int seconds = 0;
        for (CreatableTopicConfig c : configs) {
            if ("cleanup.policy".equals(c.name()) && c.value() != null && c.value().contains("compact")) {
                throw new InvalidConfigurationException("cleanup.policy=compact is not supported");
            }
            if (RETENTION_MS.equals(c.name()) && c.value() != null) {
                seconds = retentionSeconds(c.value());
            }
        }
        return seconds;
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
