package io.queen.kafka.share;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidShareSessionEpochException;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;

/**
 * The share sessions of this broker (KIP-932): a member's ShareFetch with epoch 0 opens one naming its partitions,
 * the following requests carry the next epoch and name only the partitions added (and those forgotten), epoch -1
 * closes it. A member has one session per broker. Sessions end with their member too (leave, expiry: {@link
 * ShareGroups}), and the broker holds at most {@code queen.kafka.share.max-share-sessions}: when it holds that many,
 * a new session takes the place of the least recently used one if that was idle for {@link #IDLE_NANOS}, else it is
 * refused with SHARE_SESSION_LIMIT_REACHED (the member's own old session always makes room). Idle time is read on
 * an injected clock, so tests drive it. Thread-safe: the map is concurrent, sessions are opened one at a time (the
 * limit is exact), a session is used by its member's requests one at a time (a share consumer waits for each
 * answer).
 */
@ApplicationScoped
class ShareSessions {
    /**
     * How long a session goes unused before a new one may take its place when the broker holds its most: Apache
     * Kafka 4.0's eviction time for share and fetch sessions. This reclaims the sessions of members that went away
     * without closing them on a broker that does not coordinate their group (it never hears that they left); a
     * member that merely paused that long answers SHARE_SESSION_NOT_FOUND with a new session.
     */
    static final long IDLE_NANOS = 120_000_000_000L;

    /** A topic partition of a session, with the topic's name as the session resolved it. */
    record Partition(Uuid topicId, int index) {
    }

    static final class Session {
        int epoch;
        final Map<Partition, String> partitions = new LinkedHashMap<>();
        /** The topics the session's requests named, by id (a topic named again is not looked up again). */
        final Map<Uuid, io.queen.kafka.KafkaStore.Topic> topics = new java.util.HashMap<>();
        /** The group's settings as last read, and when (nanoTime): re-read every few seconds, a config change applies. */
        ShareGroupConfigs.Settings settings;
        long settingsAt;
        /** When the group began (share.auto.offset.reset=latest), read once per session. */
        java.time.OffsetDateTime since;
        /** Where the next fetch starts among the partitions, so that one busy partition cannot starve the rest. */
        int rotation;
        /** When a request last used the session (the sessions' clock). */
        volatile long usedAt;

        synchronized int next() {
            epoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
            return epoch;
        }
    }

    record Key(UUID tenant, String group, String member) {
    }

    private final ConcurrentHashMap<Key, Session> sessions = new ConcurrentHashMap<>();
    private final int max;
    /** Now, in nanoseconds: {@link System#nanoTime} but in tests. */
    private final LongSupplier clock;

    @Inject
    ShareSessions(KafkaShareConfig config) {
        this(config.maxShareSessions(), System::nanoTime);
    }

    /** At most {@code max} sessions, idle time read on {@code clock} (nanoseconds). */
    ShareSessions(int max, LongSupplier clock) {
        this.max = max;
        this.clock = clock;
    }

    /**
     * The member's session for a request of {@code epoch}: 0 opens a new one (replacing any), -1 ends it (and
     * answers it for the request's last acknowledgements), another epoch must be the one the session expects.
     */
    Session enter(Key key, int epoch) {
        if (epoch == 0) {
            return open(key);
        }
        Session s = epoch == -1 ? sessions.remove(key) : sessions.get(key);
        if (s == null) {
            throw new ShareSessionNotFoundException("no share session for member " + key.member());
        }
        if (epoch != -1) {
            synchronized (s) {
                if (s.epoch != epoch) {
                    throw new InvalidShareSessionEpochException("share session epoch " + epoch + ", expected "
                            + s.epoch);
                }
                s.next();
            }
            s.usedAt = clock.getAsLong();
        }
        return s;
    }

    /** Ends the member's session, if it has one here. */
    void end(Key key) {
        sessions.remove(key);
    }

    /** Ends {@code session} if it is still the member's. */
    void end(Key key, Session session) {
        sessions.remove(key, session);
    }

    private synchronized Session open(Key key) {
        sessions.remove(key);
        long now = clock.getAsLong();
        if (sessions.size() >= max) {
            evictIdle(now);
        }
        if (sessions.size() >= max) { // only opens add sessions, and they take turns: the limit holds
            throw new ShareSessionLimitReachedException("this broker holds its most share sessions (" + max + ")");
        }
        Session s = new Session();
        s.epoch = 1;
        s.usedAt = now;
        sessions.put(key, s);
        return s;
    }

    /** Ends the least recently used session if it was idle for {@link #IDLE_NANOS}. */
    private void evictIdle(long now) {
        Map.Entry<Key, Session> oldest = null;
        for (Map.Entry<Key, Session> e : sessions.entrySet()) {
            if (oldest == null || e.getValue().usedAt - oldest.getValue().usedAt < 0) {
                oldest = e;
            }
        }
        if (oldest != null && now - oldest.getValue().usedAt > IDLE_NANOS) {
            sessions.remove(oldest.getKey(), oldest.getValue());
        }
    }
}
