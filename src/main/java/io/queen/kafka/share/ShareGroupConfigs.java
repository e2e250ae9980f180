package io.queen.kafka.share;

import io.queen.kafka.GroupResourceConfigs;
import io.queen.kafka.group.GroupCoordinator;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * The configs of a GROUP resource Queen honours, stored per (tenant, group) in {@code queen.kafka_group_configs},
 * with the broker's defaults ({@link KafkaShareConfig}) for those a group does not set. The other group configs
 * Apache Kafka 4.4 knows are refused by name. Stateless, thread-safe.
 */
@ApplicationScoped
public class ShareGroupConfigs implements GroupResourceConfigs {
    static final String RESET = "share.auto.offset.reset";
    static final String LOCK_MS = "share.record.lock.duration.ms";
    static final String DELIVERY_LIMIT = "share.delivery.count.limit";
    /** Lock durations a group may set: Queen's bounds (Apache Kafka's broker bounds default to 15-60 s). */
    static final int MIN_LOCK_MS = 1_000;
    static final int MAX_LOCK_MS = 3_600_000;
    /** Delivery count limits a group may set, as Apache Kafka bounds them. */
    static final int MIN_DELIVERY_LIMIT = 2;
    static final int MAX_DELIVERY_LIMIT = 10;
    /** Group configs of Apache Kafka 4.4 that Queen does not serve: refused by name, not silently kept. */
    private static final Set<String> NOT_SERVED = Set.of("consumer.session.timeout.ms",
            "consumer.heartbeat.interval.ms", "share.session.timeout.ms", "share.heartbeat.interval.ms",
            "share.isolation.level", "share.renew.acknowledge.enable", "errors.deadletterqueue.topic.name",
            "errors.deadletterqueue.auto.create.topics.enable", "streams.session.timeout.ms",
            "streams.heartbeat.interval.ms", "streams.num.standby.replicas", "consumer.assignment.interval.ms",
            "share.assignment.interval.ms", "streams.initial.rebalance.delay.ms");

    /** A group's settings in effect. */
    public record Settings(String reset, int lockMs, int deliveryLimit) {
    }

    private final ShareStore store;
    private final KafkaShareConfig config;

    ShareGroupConfigs(ShareStore store, KafkaShareConfig config) {
        this.store = store;
        this.config = config;
    }

    /** The group's settings: its own configs over the broker's defaults. */
    public Settings settings(UUID tenant, String group) throws SQLException {
        Map<String, String> set = stored(tenant, group);
        return new Settings(set.getOrDefault(RESET, config.autoOffsetReset()),
                set.containsKey(LOCK_MS) ? Integer.parseInt(set.get(LOCK_MS)) : config.recordLockDurationMs(),
                set.containsKey(DELIVERY_LIMIT) ? Integer.parseInt(set.get(DELIVERY_LIMIT))
                        : config.deliveryCountLimit());
    }

    @Override
    public boolean valid(String group) {
        return GroupCoordinator.validGroupId(group);
    }

    @Override
    public List<Described> describe(UUID tenant, String group, List<String> names) throws SQLException {
        Map<String, String> set = stored(tenant, group);
        Map<String, String> defaults = Map.of(RESET, config.autoOffsetReset(),
                LOCK_MS, Integer.toString(config.recordLockDurationMs()),
                DELIVERY_LIMIT, Integer.toString(config.deliveryCountLimit()));
        List<Described> out = new ArrayList<>();
        for (String name : List.of(DELIVERY_LIMIT, RESET, LOCK_MS)) {
            if (names == null || names.contains(name)) {
                out.add(new Described(name, set.getOrDefault(name, defaults.get(name)), !set.containsKey(name),
                        (RESET.equals(name) ? ConfigType.STRING : ConfigType.INT).id()));
            }
        }
        return out;
    }

    @Override
    public void set(UUID tenant, String group, String name, String value, boolean validateOnly)
            throws SQLException {
        if (value != null) {
            value = value.trim();
            check(name, value);
        } else if (!List.of(RESET, LOCK_MS, DELIVERY_LIMIT).contains(name)) {
            check(name, "");
        }
        if (!validateOnly) {
            store.setConfig(tenant, group, name, value);
        }
    }

    private static void check(String name, String value) {
        switch (name == null ? "" : name) {
            case RESET -> {
                if (!"latest".equals(value) && !"earliest".equals(value)) {
                    throw new InvalidConfigurationException(RESET + " must be latest or earliest, not " + value);
                }
            }
            case LOCK_MS -> range(name, value, MIN_LOCK_MS, MAX_LOCK_MS);
            case DELIVERY_LIMIT -> range(name, value, MIN_DELIVERY_LIMIT, MAX_DELIVERY_LIMIT);
            default -> throw new InvalidConfigurationException(NOT_SERVED.contains(name)
                    ? name + " is a Kafka group config Queen does not serve"
                    : "unknown group config " + name);
        }
    }

    private static void range(String name, String value, int min, int max) {
        int v;
        try {
            v = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException(name + " must be a whole number, not " + value);
        }
        if (v < min || v > max) {
            throw new InvalidConfigurationException(name + " must be between " + min + " and " + max + ", not " + v);
        }
    }

    private Map<String, String> stored(UUID tenant, String group) throws SQLException {
        return store.configs(tenant, group);
    }
}
