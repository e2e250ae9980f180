package io.queen.maintenance;

import io.queen.background.OutageWarning;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import io.queen.sql.SqlCalls;
import jakarta.inject.Singleton;
import jakarta.enterprise.event.Observes;
import java.sql.SQLException;
import org.jboss.logging.Logger;

/**
 * The cluster-wide maintenance switches ({@code queen.system_switches}). The truth is the database row; every
 * broker re-reads it every {@code queen.maintenance.poll-ms} (one primary-key read), so a switch set through any
 * broker reaches every other within that interval. The hot paths (push, pop) read only the two volatile fields.
 * While the database is unreachable the last known values stay in force.
 *
 * <p>Thread-safety: the fields are volatile and written by the poller and by {@link #set}; readers never block.
 */
@Singleton
public class MaintenanceSwitches {
    private static final Logger LOG = Logger.getLogger(MaintenanceSwitches.class);

    public static final String PUSH = "push_maintenance";
    public static final String POP = "pop_maintenance";

    /** Both switches as the database holds them. */
    public record State(boolean push, boolean pop) {
    }

    private final SqlCalls sql;
    private final long pollMs;
    private final MeterRegistry registry;
    private final java.util.List<Gauge> gauges = new java.util.ArrayList<>();
    /** Completed {@link #set} calls on this broker: a poll adopts its read only if none completed during it. */
    private final java.util.concurrent.atomic.AtomicLong sets = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean push;
    private volatile boolean pop;
    /** False until the first read (or set) adopted the database's values: until then push and pop are guesses. */
    private volatile boolean known;
    private volatile boolean running;
    private Thread poller;

    MaintenanceSwitches(SqlCalls sql, QueenConfig config, MeterRegistry registry) {
        this.sql = sql;
        this.pollMs = Math.max(20, config.maintenance().pollMs());
        this.registry = registry;
        gauges.add(Gauge.builder("queen.maintenance.mode.enabled", this, s -> s.push ? 1 : 0).tag("mode", "push")
                .description("1 while push maintenance is on: pushes are answered 'buffered' and spooled to disk")
                .register(registry));
        gauges.add(Gauge.builder("queen.maintenance.mode.enabled", this, s -> s.pop ? 1 : 0).tag("mode", "pop")
                .description("1 while pop maintenance is on: pops answer 204 without leasing").register(registry));
    }

    void start(@Observes StartupEvent e) {
        running = true;
        poller = Thread.ofVirtual().name("maintenance-switches").start(this::poll);
    }

    void stop(@Observes ShutdownEvent e) {
        running = false;
        // the registry can outlive this bean (tests restart the application in one JVM): a gauge left behind
        // would keep reading a stopped instance
        gauges.forEach(registry::remove);
        if (poller != null) {
            poller.interrupt();
        }
    }

    /** Push maintenance as this broker last read it (at most {@code poll-ms} old). */
    public boolean pushMaintenance() {
        return push;
    }

    /** Pop maintenance as this broker last read it (at most {@code poll-ms} old). */
    public boolean popMaintenance() {
        return pop;
    }

    /**
     * Whether this broker has read the switches from the database since it started. Until then
     * {@link #pushMaintenance} is a default, not the cluster's value: the push spool does not drain on it (a broker
     * restarted during push maintenance would otherwise hand its buffered pushes to consumers).
     */
    public boolean known() {
        return known;
    }

    /**
     * Reads the switches once if this broker has not read them since it started, so that a request arriving before
     * the poller's first read acts on the cluster's value, not on the default (a push right after a crash restart
     * during push maintenance went to the log). After the first read this is one volatile read.
     */
    public void awaitKnown() throws SQLException {
        if (!known) {
            read();
        }
    }

    /**
     * Reads the switches from the database (the authoritative, cluster-wide value) and adopts them, unless a
     * {@link #set} on this broker completed meanwhile: that read may predate the change, and adopting it would undo,
     * here, the switch just set (a push right after "maintenance on" answered queued).
     */
    public State read() throws SQLException {
        long before = sets.get();
        State s = query();
        synchronized (this) {
            if (sets.get() == before) {
                adopt(s);
            }
        }
        return s;
    }

    private State query() throws SQLException {
        return sql.one("SELECT push_enabled, pop_enabled FROM queen.maintenance_get_v1()",
                rs -> new State(rs.getBoolean(1), rs.getBoolean(2)));
    }

    /** Sets one switch cluster-wide and adopts it here at once; returns the state after the change. */
    public State set(String name, boolean enabled) throws SQLException {
        boolean old = sql.flag("SELECT queen.maintenance_set_v1(?, ?)", name, enabled);
        if (old != enabled) {
            LOG.infof("maintenance: %s switched %s", name, enabled ? "on" : "off");
        }
        sets.incrementAndGet();  // a poll that started before this point must not adopt what it read
        State s = query();
        synchronized (this) {
            adopt(s);
        }
        return s;
    }

    private void adopt(State s) {
        if (s.push() != push || s.pop() != pop) {
            LOG.infof("maintenance: this broker now has push maintenance %s, pop maintenance %s",
                    s.push() ? "on" : "off", s.pop() ? "on" : "off");
        }
        push = s.push();
        pop = s.pop();
        known = true;
    }

    private void poll() {
        OutageWarning outage = new OutageWarning(LOG);
        while (running) {
            try {
                read();
                outage.succeeded();
            } catch (SQLException e) {
                if (!running) {
                    return;  // stopping: the interrupt closed the connection mid-read
                }
                outage.failed("maintenance switches unreadable (%s); keeping push %s, pop %s", e.getMessage(),
                        push ? "on" : "off", pop ? "on" : "off");
            }
            try {
                Thread.sleep(pollMs);
            } catch (InterruptedException ie) {
                return;
            }
        }
    }
}
