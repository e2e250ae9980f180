package io.queen.kafka.group;

import io.queen.kafka.group.ClassicGroups.Key;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The consumer-protocol groups (KIP-848) this broker coordinates: each held in memory while coordinated here, loaded
 * from its {@link ConsumerGroupLog} on first use, and dropped when another broker takes it over. Session timeouts
 * and revocation deadlines are applied by {@link #expire}, which the coordinator's timer calls.
 *
 * <p>Thread-safety: every group's state is guarded by that group's monitor, and every request or expiry runs wholly
 * under it. A group leaves the map only while marked Dead under its monitor; a request that picked up the stale
 * object sees Dead and starts over on the map's current one. The clock is passed in, so tests drive time.
 */
final class ConsumerGroups {
    /**
     * Broker settings of consumer groups: {@code group.consumer.session.timeout.ms},
     * {@code group.consumer.heartbeat.interval.ms}, {@code group.consumer.max.size}, the assignors served.
     */
    record Settings(int sessionTimeoutMs, int heartbeatIntervalMs, int maxSize,
            Map<String, PartitionAssignor> assignors) {
        String defaultAssignor() {
            return assignors.keySet().iterator().next();
        }
    }

    private final ConcurrentHashMap<Key, ConsumerGroup> groups = new ConcurrentHashMap<>();
    /** Group epoch bumps of this broker's groups (each one a new target assignment), since start. */
    private final LongAdder rebalances = new LongAdder();

    long rebalances() {
        return rebalances.sum();
    }

    /** Members of the groups this broker coordinates now (a racy sum: read for a gauge, never for a decision). */
    int members() {
        int n = 0;
        for (ConsumerGroup g : groups.values()) {
            n += g.members().size();
        }
        return n;
    }
    private final Settings settings;
    private final LongSupplier clockMs;
    private final ConsumerGroupLog log;

    ConsumerGroups(Settings settings, LongSupplier clockMs, ConsumerGroupLog log) {
        this.settings = settings;
        this.clockMs = clockMs;
        this.log = log;
    }

    Settings settings() {
        return settings;
    }

    ConsumerGroup.HeartbeatResult heartbeat(Key key, ConsumerGroup.Heartbeat r,
            Map<String, ConsumerGroup.TopicInfo> topics) {
        return onGroup(key, r.memberEpoch() == 0, g -> g.heartbeat(r, topics, clockMs.getAsLong()),
                () -> ConsumerGroup.HeartbeatResult.error(r.memberEpoch() < 0 ? Errors.UNKNOWN_MEMBER_ID
                        : Errors.GROUP_ID_NOT_FOUND, "Consumer group " + key.groupId() + " not found."),
                () -> ConsumerGroup.HeartbeatResult.error(Errors.COORDINATOR_NOT_AVAILABLE, null));
    }

    /**
     * {@code read} applied to the group under its monitor, or {@code absent}'s answer when there is no such group
     * (none saved, or it is being deleted or cannot be loaded now).
     */
    <R> R read(Key key, Function<ConsumerGroup, R> read, Supplier<R> absent) {
        return onGroup(key, false, read, absent, absent);
    }

    /** Whether the group is a consumer-protocol group with members (so the classic protocol cannot use its id). */
    boolean live(Key key) {
        return read(key, g -> !g.members().isEmpty(), () -> false);
    }

    /** Whether the group is held in memory here (no database look-up). */
    boolean held(Key key) {
        ConsumerGroup g = groups.get(key);
        return g != null && g.loaded() && !g.members().isEmpty();
    }

    /** {@code read} of every group of the tenant held here. */
    <R> List<R> list(UUID tenant, Function<ConsumerGroup, R> read) {
        List<R> out = new ArrayList<>();
        for (ConsumerGroup g : groups.values()) {
            if (g.key().tenant().equals(tenant)) {
                R r = onGroup(g.key(), false, x -> x.members().isEmpty() ? null : read.apply(x), () -> null,
                        () -> null);
                if (r != null) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** Starts deleting an Empty group (NON_EMPTY_GROUP while it has members); {@link #deleted} ends it. */
    Errors beginDelete(Key key) {
        return onGroup(key, false, ConsumerGroup::beginDelete, () -> Errors.NONE,
                () -> Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /** Ends a deletion: the group and its saved state are forgotten. */
    void deleted(Key key) {
        ConsumerGroup g = groups.get(key);
        if (g != null) {
            synchronized (g) {
                if (g.state() == ConsumerGroupState.DEAD) {
                    groups.remove(key, g);
                }
            }
        }
        try {
            log.delete(key);
        } catch (GroupLog.Unavailable e) {
            // an empty group's saved state left behind holds no member: the next join starts from it
        }
    }

    /** Forgets every group {@code keep} rejects (this broker no longer coordinates it). */
    void dropUnless(Predicate<Key> keep) {
        for (ConsumerGroup g : groups.values()) {
            if (!keep.test(g.key())) {
                synchronized (g) {
                    if (g.state() != ConsumerGroupState.DEAD) {
                        g.abandon();
                    }
                    groups.remove(g.key(), g);
                }
            }
        }
    }

    /** Evicts members whose session or revocation deadline passed; forgets groups left without members. */
    void expire() {
        long now = clockMs.getAsLong();
        for (ConsumerGroup g : groups.values()) {
            synchronized (g) {
                if (g.state() == ConsumerGroupState.DEAD || !g.loaded()) {
                    continue;
                }
                g.expire(now);
                if (g.abandoned() || g.members().isEmpty()) {
                    forget(g);
                }
            }
        }
    }

    private <R> R onGroup(Key key, boolean create, Function<ConsumerGroup, R> action, Supplier<R> absent,
            Supplier<R> unavailable) {
        while (true) {
            ConsumerGroup g = groups.computeIfAbsent(key,
                    k -> new ConsumerGroup(k, settings, log).countingRebalancesIn(rebalances));
            synchronized (g) {
                if (g.state() == ConsumerGroupState.DEAD) {
                    if (groups.get(key) == g) {
                        return unavailable.get();
                    }
                    continue; // forgotten meanwhile: start over on the current one
                }
                if (!g.loaded()) {
                    ConsumerGroupLog.Saved saved;
                    try {
                        saved = log.load(key);
                        if (saved == null && !create) {
                            forget(g);
                            return absent.get();
                        }
                        g.restore(saved, clockMs.getAsLong());
                    } catch (GroupLog.Unavailable e) {
                        forget(g);
                        return unavailable.get();
                    }
                }
                R result = action.apply(g);
                if (g.abandoned()) {
                    groups.remove(key, g);
                }
                return result;
            }
        }
    }

    /** Under {@code g}'s monitor: marks it Dead and takes it out of the map, so the next request starts afresh. */
    private void forget(ConsumerGroup g) {
        if (g.state() != ConsumerGroupState.DEAD) {
            g.abandon();
        }
        groups.remove(g.key(), g);
    }
}
