package io.queen.pop;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import io.queen.push.PushFusion;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import jakarta.enterprise.event.Observes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
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
 * last empty attempt, so a commit between the attempt and the wait is never missed. A failed announcement is
 * repeated; a long safety interval ({@code queen.pop.recheck-interval-ms}) covers one lost anyway (a broker killed
 * between its commit and its announcement). Besides commits, {@link #freed} (an ack or release that ended a lease,
 * a cursor moved back) wakes parked pops: they do not re-query on a timer. Thread-safe.
 *
 * <p>The NOTIFY for other brokers is sent AFTER the push committed, by one publisher thread that coalesces the
 * queues committed meanwhile into one {@code pg_notify} call (at most one in flight). It is deliberately not
 * part of the push transaction: PostgreSQL serializes the commits of every transaction that queued a
 * notification on one database-wide lock held through the commit's WAL flush, which turned concurrent push
 * commits into a single-file queue (measured: 151 of 194 sampled push backends waiting on {@code Lock:object}).
 * A notify-only transaction writes no WAL, so it holds that lock only briefly.
 *
 * <p>Rounds are at least {@code QUEEN_NOTIFY_INTERVAL_MS} apart (default 10 ms): every notification costs a
 * PostgreSQL backend, the listening backend of every broker and that broker's listener thread, and at 60k msg/s a
 * round per push commit was ~470 rounds/s (about 7% of broker + PostgreSQL CPU). Only other brokers' parked pops
 * wait for it (local ones are woken directly), so they wake at most one interval later. The publisher keeps one
 * connection, and the listener skips notifications sent from that backend (its own echo would wake the local
 * pops a second time).
 *
 * <p>A round is skipped when no other broker listens: every listener connection is named {@code queen-listen}
 * ({@code application_name}), and the publisher counts the others ({@code queen.push_listeners_v1}) at most every
 * {@link #PEER_CHECK_NANOS}. A broker that starts listening is heard from within that time plus one round; its
 * listener wakes its parked pops when it starts, and a publisher that finds a listener where it found none
 * announces {@link #EVERYTHING} once (the queues it skipped meanwhile are not remembered).
 */
@Singleton
public class PopWaiters implements PushFusion.CommitListener {
    private static final Logger LOG = Logger.getLogger(PopWaiters.class);

    /**
     * A wake-up counter with a condition to wait on. Beside the generation it counts the wake-ups that were not
     * this broker's own fused push commits ({@link #others}): a parked pop that sees only fused commits since
     * its last attempt can ask {@link HotPartitions} whether any of them is still unclaimed for its group.
     */
    public static final class Signal {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long generation;
        private long others;

        public long generation() {
            lock.lock();
            try {
                return generation;
            } finally {
                lock.unlock();
            }
        }

        /** Wake-ups other than this broker's fused push commits so far (a lease freed, another broker, ...). */
        public long others() {
            lock.lock();
            try {
                return others;
            } finally {
                lock.unlock();
            }
        }

        void fire() {
            fire(false);
        }

        /** {@code fusedCommit}: this broker's PushFusion committed (and HotPartitions already knows where). */
        void fire(boolean fusedCommit) {
            lock.lock();
            try {
                generation++;
                if (!fusedCommit) {
                    others++;
                }
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
    private final HotPartitions hot;
    private volatile boolean running = true;
    private volatile Thread listener;
    private volatile Connection listenConnection;
    /** tenant/queue keys committed but not yet announced to other brokers. */
    private final Set<String> unpublished = ConcurrentHashMap.newKeySet();
    private final Semaphore publishSignal = new Semaphore(0);
    private volatile Thread publisher;
    /** Backend pid of the publisher's connection (0 = none): notifications from it are this broker's own echo. */
    private volatile int publisherPid;
    private final long notifyIntervalNanos;
    private final Counter notifyRounds;
    private final Counter notifySkipped;
    /** Notification payload asking every listening broker to wake all its parked pops. */
    static final String EVERYTHING = "*";
    /** application_name of every broker's LISTEN connection: how brokers find each other. */
    static final String LISTENER_NAME = "queen-listen";
    /** How long a count of other listening brokers is trusted. */
    static final long PEER_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Backend pid of this broker's LISTEN connection (0 = not listening). */
    private volatile int listenerPid;
    /** Publisher thread only: other brokers listening at the last check, and when it was made. */
    private boolean peers = true;
    private long peersCheckedAt;
    private boolean peersChecked;
    /** Publisher thread only: a check found listeners after one that found none (rounds were skipped). */
    private boolean peersAppeared;

    PopWaiters(AgroalDataSource ds, QueenConfig config, MeterRegistry registry, HotPartitions hot) {
        this.ds = ds;
        this.hot = hot;
        this.notifyIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.pop().notifyIntervalMs()));
        this.notifyRounds = Counter.builder("queen.pop.notify.rounds")
                .description("pg_notify calls announcing commits to other brokers").register(registry);
        this.notifySkipped = Counter.builder("queen.pop.notify.skipped")
                .description("announcement rounds not sent because no other broker listens").register(registry);
    }

    public Signal queue(UUID tenant, String queue) {
        return byQueue.computeIfAbsent(tenant + "/" + queue, k -> new Signal());
    }

    /** Moves on a commit to any queue of the tenant (namespace/task discovery pops). */
    public Signal tenant(UUID tenant) {
        return byTenant.computeIfAbsent(tenant, k -> new Signal());
    }

    /**
     * This broker's fused push commits: the hot lists learn the partitions first, then the parked pops wake (a pop
     * that wakes to an empty hot list may go back to sleep, see {@link Signal#others}).
     */
    @Override
    public void committed(List<PushFusion.Committed> segments) {
        hot.committed(segments);
        for (PushFusion.Committed c : segments) {
            wake(c.tenant(), c.queue(), true);
            publish(c.tenant(), c.queue());
        }
    }

    /** A caller's own transaction wrote to the queue and committed (transaction route, stream cycle, Kafka EndTxn). */
    @Override
    public void written(UUID tenant, String queue) {
        wake(tenant, queue);
        publish(tenant, queue);
    }

    /** Announces a committed push to other brokers (NOTIFY queen_push), coalesced, after the commit. */
    public void publish(UUID tenant, String queue) {
        if (unpublished.add(tenant + "/" + queue)) {
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
                    publisherPid = c.unwrap(PGConnection.class).getBackendPID();
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
                publisherPid = 0;
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
        publisherPid = 0;
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
                q.setInt(1, listenerPid);
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

    /** A pop handed a partition with work left back to its group's hot list (HotPartitions#reoffer). */
    public void reoffered(UUID tenant, String queue) {
        wake(tenant, queue, true);
    }

    /** Work in the queue may be claimable (a transaction or stream cycle committed to it, a lease ended, ...). */
    public void wake(UUID tenant, String queue) {
        wake(tenant, queue, false);
    }

    private void wake(UUID tenant, String queue, boolean fusedCommit) {
        Signal s = byQueue.get(tenant + "/" + queue);
        if (s != null) {
            s.fire(fusedCommit);
        }
        Signal t = byTenant.get(tenant);
        if (t != null) {
            t.fire();
        }
    }

    /**
     * Work in the queue became claimable without a write (a lease ended, a cursor moved back): parked pops here
     * and, through NOTIFY, on other brokers try again. They do not re-query on a timer.
     */
    public void freed(UUID tenant, String queue) {
        wake(tenant, queue);
        publish(tenant, queue);
    }

    /** As {@link #freed} for every queue of every tenant (a stopping broker gave back its leases). */
    public void freedEverywhere() {
        wakeAll();
        if (unpublished.add(EVERYTHING)) {
            publishSignal.release();
        }
    }

    /** Wakes every parked pop (a drain makes them answer 204; a reconnected listener makes them re-check). */
    public void wakeAll() {
        byQueue.values().forEach(Signal::fire);
        byTenant.values().forEach(Signal::fire);
    }

    void start(@Observes StartupEvent event) {
        Thread t = new Thread(this::listen, "pop-listen");
        t.setDaemon(true);
        listener = t;
        t.start();
        Thread p = new Thread(this::publishLoop, "push-notify");
        p.setDaemon(true);
        publisher = p;
        p.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        Thread t = listener;
        if (t != null) {
            t.interrupt();
        }
        Thread p = publisher;
        if (p != null) {
            p.interrupt();
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
                    listenerPid = pg.getBackendPID();
                    wakeAll();  // anything committed while we were not listening
                    backoff = 200;
                    while (running) {
                        PGNotification[] ns = pg.getNotifications(1000);
                        if (ns == null) {
                            continue;
                        }
                        for (PGNotification n : ns) {
                            if (n.getPID() == publisherPid) {
                                continue;  // our own announcement: the local pops were woken at commit
                            }
                            String p = n.getParameter();
                            if (EVERYTHING.equals(p)) {
                                wakeAll();
                                continue;
                            }
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
                listenerPid = 0;
            }
        }
    }
}
