package io.queen.kafka.share;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidShareSessionEpochException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;

/**
 * The share sessions of this broker (KIP-932): a member's ShareFetch with epoch 0 opens one naming its partitions,
 * the following requests carry the next epoch and name only the partitions added (and those forgotten), epoch -1
 * closes it. A member has one session per broker. Thread-safe: the map is concurrent, a session is used by its
 * member's requests one at a time (a share consumer waits for each answer).
 */
@ApplicationScoped
class ShareSessions {
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

        synchronized int next() {
            epoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
            return epoch;
        }
    }

    record Key(UUID tenant, String group, String member) {
    }

    private final ConcurrentHashMap<Key, Session> sessions = new ConcurrentHashMap<>();

    /**
     * The member's session for a request of {@code epoch}: 0 opens a new one (replacing any), -1 ends it (and
     * answers it for the request's last acknowledgements), another epoch must be the one the session expects.
     */
    Session enter(Key key, int epoch) {
        if (epoch == 0) {
            Session s = new Session();
            s.epoch = 1;
            sessions.put(key, s);
            return s;
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
        }
        return s;
    }
}
