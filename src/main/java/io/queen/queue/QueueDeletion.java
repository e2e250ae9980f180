package io.queen.queue;

import jakarta.inject.Inject;
import io.queen.metrics.OpsMeter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.SQLException;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Deleting a queue with everything it owns, wherever it is asked for (the HTTP route, Kafka DeleteTopics): the
 * rows ({@link QueueStore#delete}), then what this broker remembers of the queue (push lanes with their dedup
 * indexes, metric labels). Stateless, thread-safe.
 */
@ApplicationScoped
public class QueueDeletion {
    private static final Logger LOG = Logger.getLogger(QueueDeletion.class);

    /**
     * Told on the deleting thread once a queue's rows are gone, to drop what it remembers of the queue (the push
     * lanes with their dedup indexes). An interface owned here so that queues need not know the write path.
     */
    public interface Listener {
        void deleted(UUID tenant, String queue);
    }

    @Inject QueueStore store;
    @Inject Instance<Listener> listeners;
    @Inject OpsMeter meter;

    /** Deletes the queue; whether it existed. */
    public boolean delete(UUID tenant, String name) throws SQLException {
        boolean existed = store.delete(tenant, name);
        for (Listener l : listeners) {
            l.deleted(tenant, name);
        }
        if (existed) {
            meter.forget(tenant, name);
            LOG.infof("queue deleted: tenant=%s queue=%s", tenant, name);
        }
        return existed;
    }
}
