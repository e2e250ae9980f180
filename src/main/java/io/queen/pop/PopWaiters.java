package io.queen.pop;

import io.agroal.api.AgroalDataSource;
import io.queen.push.PushFusion;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Where long-polling pops park. A parked pop holds no database connection: it waits on its queue's
 * {@link Signal}, whose generation moves when a push to that queue commits on this broker (told directly by
 * {@link PushFusion}) or on any other broker (PostgreSQL NOTIFY on channel {@code queen_push}, payload
 * {@code tenant/queue}, received by one LISTEN connection). A waiter remembers the generation it saw before its
 * last empty attempt, so a commit between the attempt and the wait is never missed; a bounded re-check interval
 * covers a lost notification. Thread-safe.
 */
@ApplicationScoped
public class PopWaiters implements PushFusion.CommitListener {
    private static final Logger LOG = Logger.getLogger(PopWaiters.class);

    /** A wake-up counter with a condition to wait on. */
    public static final class Signal {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long generation;

        public long generation() {
            lock.lock();
            try {
                return generation;
            } finally {
                lock.unlock();
            }
        }

        void fire() {
            lock.lock();
            try {
                generation++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Waits until the generation differs from {@code seen} or the time is up; true when it moved. */
        public boolean awaitChange(long seen, long nanos) throws InterruptedException {
            lock.lock();
            try {
                while (generation == seen && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
                return generation != seen;
            } finally {
                lock.unlock();
            }
        }
    }

    private final ConcurrentHashMap<String, Signal> byQueue = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, Signal> byTenant = new ConcurrentHashMap<>();
    private final AgroalDataSource ds;
    private volatile boolean running = true;
    private volatile Thread listener;
    private volatile Connection listenConnection;

    PopWaiters(AgroalDataSource ds) {
        this.ds = ds;
    }

    public Signal queue(UUID tenant, String queue) {
        return byQueue.computeIfAbsent(tenant + "/" + queue, k -> new Signal());
    }

    /** Moves on a commit to any queue of the tenant (namespace/task discovery pops). */
    public Signal tenant(UUID tenant) {
        return byTenant.computeIfAbsent(tenant, k -> new Signal());
    }

    @Override
    public void committed(List<PushFusion.Committed> segments) {
        for (PushFusion.Committed c : segments) {
            wake(c.tenant(), c.queue());
        }
    }

    public void wake(UUID tenant, String queue) {
        Signal s = byQueue.get(tenant + "/" + queue);
        if (s != null) {
            s.fire();
        }
        Signal t = byTenant.get(tenant);
        if (t != null) {
            t.fire();
        }
    }

    private void wakeAll() {
        byQueue.values().forEach(Signal::fire);
        byTenant.values().forEach(Signal::fire);
    }

    void start(@Observes StartupEvent event) {
        Thread t = new Thread(this::listen, "pop-listen");
        t.setDaemon(true);
        listener = t;
        t.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        Thread t = listener;
        if (t != null) {
            t.interrupt();
        }
        Connection c = listenConnection;
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // shutting down
            }
        }
    }

    /** One LISTEN connection per broker; reconnects with backoff and wakes everyone after a gap. */
    private void listen() {
        long backoff = 200;
        while (running) {
            try (Connection c = ds.getConnection()) {
                listenConnection = c;
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN queen_push");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                wakeAll();  // anything committed while we were not listening
                backoff = 200;
                while (running) {
                    PGNotification[] ns = pg.getNotifications(1000);
                    if (ns == null) {
                        continue;
                    }
                    for (PGNotification n : ns) {
                        String p = n.getParameter();
                        int slash = p.indexOf('/');
                        if (slash > 0) {
                            try {
                                wake(UUID.fromString(p.substring(0, slash)), p.substring(slash + 1));
                            } catch (IllegalArgumentException e) {
                                LOG.debugf("ignoring notification %s", p);
                            }
                        }
                    }
                }
            } catch (Exception e) {
                if (!running) {
                    return;
                }
                LOG.warnf("LISTEN connection lost (%s); retrying in %d ms", e.getMessage(), backoff);
                try {
                    TimeUnit.MILLISECONDS.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(backoff * 2, 5000);
            } finally {
                listenConnection = null;
            }
        }
    }
}
