package io.queen.wakeup;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The one owner of this broker's LISTEN connection (channel {@code queen_push}): other brokers' announcements
 * ({@link WakePublisher}) become wake-ups of the parked pops here ({@link PopWaiters}), payload {@code tenant/queue}
 * waking that queue and {@link WakePublisher#EVERYTHING} every queue. Reconnects with backoff and wakes everyone
 * after a gap (anything may have been announced meanwhile). Thread-safe.
 */
@Singleton
class WakeListener {
    private static final Logger LOG = Logger.getLogger(WakeListener.class);

    /** application_name of every broker's LISTEN connection: how brokers find each other. */
    static final String LISTENER_NAME = "queen-listen";

    private final AgroalDataSource ds;
    private final PopWaiters waiters;
    private final NotifyBackends backends;
    private volatile boolean running = true;
    private volatile Thread listener;
    private volatile Connection listenConnection;

    WakeListener(AgroalDataSource ds, PopWaiters waiters, NotifyBackends backends) {
        this.ds = ds;
        this.waiters = waiters;
        this.backends = backends;
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

    /**
     * Before the listener's connection goes back to the pool: without this a pooled connection would keep
     * collecting notifications nobody reads and count as another broker. Best effort (it may be broken).
     */
    private static void unlisten(Connection c) {
        try (Statement s = c.createStatement()) {
            s.execute("UNLISTEN *");
            s.execute("RESET application_name");
        } catch (Exception ignored) {
            // broken connection: the pool discards it
        }
    }

    /** One LISTEN connection per broker; reconnects with backoff and wakes everyone after a gap. */
    private void listen() {
        long backoff = 200;
        while (running) {
            try (Connection c = ds.getConnection()) {
                listenConnection = c;
                c.setAutoCommit(true);
                try {
                    try (Statement s = c.createStatement()) {
                        // the name other brokers count to decide whether announcing is worth it (push_listeners_v1)
                        s.execute("SET application_name = '" + LISTENER_NAME + "'");
                        s.execute("LISTEN queen_push");
                    }
                    PGConnection pg = c.unwrap(PGConnection.class);
                    backends.listenerPid(pg.getBackendPID());
                    waiters.wakeAll();  // anything committed while we were not listening
                    backoff = 200;
                    while (running) {
                        PGNotification[] ns = pg.getNotifications(1000);
                        if (ns == null) {
                            continue;
                        }
                        for (PGNotification n : ns) {
                            if (n.getPID() == backends.publisherPid()) {
                                continue;  // our own announcement: the local pops were woken at commit
                            }
                            String p = n.getParameter();
                            if (WakePublisher.EVERYTHING.equals(p)) {
                                waiters.wakeAll();
                                continue;
                            }
                            int slash = p.indexOf('/');
                            if (slash > 0) {
                                try {
                                    waiters.wake(UUID.fromString(p.substring(0, slash)), p.substring(slash + 1));
                                } catch (IllegalArgumentException e) {
                                    LOG.debugf("ignoring notification %s", p);
                                }
                            }
                        }
                    }
                } finally {
                    unlisten(c);
                }
            } catch (Exception e) {
                if (!running) {
                    return;
                }
                if (backoff == 200) {
                    LOG.warnf("LISTEN connection lost (%s); retrying in %d ms", e.getMessage(), backoff);
                } else {
                    // once per outage at WARN; the retries of a long one (a database down at boot) are no news
                    LOG.debugf("LISTEN connection still failing (%s); retrying in %d ms", e.getMessage(), backoff);
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(backoff * 2, 5000);
            } finally {
                listenConnection = null;
                backends.listenerPid(0);
            }
        }
    }
}
