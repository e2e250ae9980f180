package io.queen.wakeup;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;

/**
 * Tells other brokers which queues have new or freed work: PostgreSQL NOTIFY on channel {@code queen_push}, payload
 * {@code tenant/queue} ({@link #EVERYTHING} for all queues), heard by their {@link WakeListener}. A failed
 * announcement is repeated; a long safety interval ({@code queen.pop.recheck-interval-ms}) covers one lost anyway
 * (a broker killed between its commit and its announcement). Thread-safe.
 *
 * <p>The NOTIFY is sent AFTER the push committed, by one publisher thread that coalesces the queues committed
 * meanwhile into one {@code pg_notify} call (at most one in flight). It is deliberately not part of the push
 * transaction: PostgreSQL serializes the commits of every transaction that queued a notification on one
 * database-wide lock held through the commit's WAL flush, which turned concurrent push commits into a single-file
 * queue (measured: 151 of 194 sampled push backends waiting on {@code Lock:object}). A notify-only transaction
 * writes no WAL, so it holds that lock only briefly.
 *
 * <p>Rounds are at least {@code QUEEN_NOTIFY_INTERVAL_MS} apart (default 10 ms): every notification costs a
 * PostgreSQL backend, the listening backend of every broker and that broker's listener thread, and at 60k msg/s a
 * round per push commit was ~470 rounds/s (about 7% of broker + PostgreSQL CPU). Only other brokers' parked pops
 * wait for it (local ones are woken directly), so they wake at most one interval later. The publisher keeps one
 * connection, and the listener skips notifications sent from that backend (its own echo would wake the local
 * pops a second time).
 *
 * <p>A round is skipped when no other broker listens: every listener connection is named
 * {@value WakeListener#LISTENER_NAME} ({@code application_name}), and the publisher counts the others
 * ({@code queen.push_listeners_v1}) at most every {@link #PEER_CHECK_NANOS}. A broker that starts listening is
 * heard from within that time plus one round; its listener wakes its parked pops when it starts, and a publisher
 * that finds a listener where it found none announces {@link #EVERYTHING} once (the queues it skipped meanwhile
 * are not remembered).
 */
@Singleton
public class WakePublisher {
    private static final Logger LOG = Logger.getLogger(WakePublisher.class);

    /** Notification payload asking every listening broker to wake all its parked pops. */
    public static final String EVERYTHING = "*";
    /** How long a count of other listening brokers is trusted. */
    static final long PEER_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final AgroalDataSource ds;
    private final NotifyBackends backends;
    private volatile boolean running = true;
    /** tenant/queue keys committed but not yet announced to other brokers. */
    private final Set<String> unpublished = ConcurrentHashMap.newKeySet();
    private final Semaphore publishSignal = new Semaphore(0);
    private volatile Thread publisher;
    private final long notifyIntervalNanos;
    private final Counter notifyRounds;
    private final Counter notifySkipped;
    /** Publisher thread only: other brokers listening at the last check, and when it was made. */
    private boolean peers = true;
    private long peersCheckedAt;
    private boolean peersChecked;
    /** Publisher thread only: a check found listeners after one that found none (rounds were skipped). */
    private boolean peersAppeared;

    WakePublisher(AgroalDataSource ds, QueenConfig config, MeterRegistry registry, NotifyBackends backends) {
        this.ds = ds;
        this.backends = backends;
        this.notifyIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.pop().notifyIntervalMs()));
        this.notifyRounds = Counter.builder("queen.pop.notify.rounds")
                .description("pg_notify calls announcing commits to other brokers").register(registry);
        this.notifySkipped = Counter.builder("queen.pop.notify.skipped")
                .description("announcement rounds not sent because no other broker listens").register(registry);
    }

    /** Announces work in the queue to other brokers (NOTIFY queen_push), coalesced, in the next round. */
    public void publish(UUID tenant, String queue) {
        announce(tenant + "/" + queue);
    }

    /** Announces {@link #EVERYTHING}: other brokers wake all their parked pops. */
    public void publishEverything() {
        announce(EVERYTHING);
    }

    private void announce(String key) {
        if (unpublished.add(key)) {
            publishSignal.release();
        }
    }

    /**
     * One pg_notify call per round for every queue committed since the previous round; rounds at least
     * {@link #notifyIntervalNanos} apart.
     */
    private void publishLoop() {
        Connection c = null;
        PreparedStatement ps = null;
        while (running) {
            try {
                publishSignal.acquire();
                publishSignal.drainPermits();
            } catch (InterruptedException e) {
                break;
            }
            long started = System.nanoTime();
            List<String> keys = new ArrayList<>(unpublished);
            unpublished.removeAll(keys);
            if (keys.isEmpty()) {
                continue;
            }
            try {
                if (c == null) {
                    // one connection and statement held across rounds (sql.SqlCalls takes a pooled one per call)
                    c = ds.getConnection();
                    c.setAutoCommit(true);
                    ps = c.prepareStatement("SELECT count(pg_notify('queen_push', k)) FROM unnest(?::text[]) AS k");
                    backends.publisherPid(c.unwrap(PGConnection.class).getBackendPID());
                }
                if (peersListening(c, started)) {
                    if (peersAppeared) {
                        keys.add(EVERYTHING);
                        peersAppeared = false;
                    }
                    ps.setArray(1, c.createArrayOf("text", keys.toArray()));
                    ps.execute();
                    notifyRounds.increment();
                } else {
                    notifySkipped.increment();
                }
            } catch (Exception e) {
                // other brokers' parked pops do not re-query on a timer: announce these again next round
                LOG.debugf("NOTIFY of %d queue(s) failed: %s", keys.size(), e.getMessage());
                backends.publisherPid(0);
                peersChecked = false;
                closeQuietly(c);
                c = null;
                if (running) {
                    unpublished.addAll(keys);
                    publishSignal.release();
                    try {
                        TimeUnit.MILLISECONDS.sleep(200);
                    } catch (InterruptedException ie) {
                        break;
                    }
                }
            }
            long rest = notifyIntervalNanos - (System.nanoTime() - started);
            if (rest > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(rest);
                } catch (InterruptedException e) {
                    break;
                }
            }
        }
        backends.publisherPid(0);
        closeQuietly(c);
    }

    /**
     * Whether another broker listens on this database, counted at most every {@link #PEER_CHECK_NANOS}. Announcing
     * with nobody listening costs a PostgreSQL round and this broker's listener an echo per round for nothing
     * (measured: ~3% of the broker's CPU in the soak shape).
     */
    private boolean peersListening(Connection c, long now) throws SQLException {
        if (!peersChecked || now - peersCheckedAt >= PEER_CHECK_NANOS) {
            try (PreparedStatement q = c.prepareStatement("SELECT queen.push_listeners_v1(?)")) {
                q.setInt(1, backends.listenerPid());
                boolean had = peers;
                try (ResultSet rs = q.executeQuery()) {
                    peers = rs.next() && rs.getInt(1) > 0;
                }
                peersAppeared |= peers && !had;
            }
            peersChecked = true;
            peersCheckedAt = now;
        }
        return peers;
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // broken or shutting down
            }
        }
    }

    void start(@Observes StartupEvent event) {
        Thread p = new Thread(this::publishLoop, "push-notify");
        p.setDaemon(true);
        publisher = p;
        p.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        Thread p = publisher;
        if (p != null) {
            p.interrupt();
        }
    }
}
