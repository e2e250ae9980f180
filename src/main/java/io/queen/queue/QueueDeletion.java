package io.queen.queue;

import jakarta.inject.Inject;
import io.queen.metrics.OpsMeter;
import io.queen.push.PushFusion;
import jakarta.enterprise.context.ApplicationScoped;
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

    @Inject QueueStore store;
    @Inject PushFusion fusion;
    @Inject OpsMeter meter;

    /** Deletes the queue; whether it existed. */
    public boolean delete(UUID tenant, String name) throws SQLException {
        boolean existed = store.delete(tenant, name);
        fusion.forgetQueue(tenant, name);
        if (existed) {
            meter.forget(tenant, name);
            LOG.infof("queue deleted: tenant=%s queue=%s", tenant, name);
        }
        return existed;
    }
}
