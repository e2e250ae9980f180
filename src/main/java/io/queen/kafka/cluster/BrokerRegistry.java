package io.queen.kafka.cluster;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.background.DaemonTimer;
import io.queen.background.OutageWarning;
import io.queen.config.QueenConfig;
import io.queen.kafka.transport.KafkaListener;
import io.queen.schema.SchemaApplier;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * This broker's membership of the Kafka cluster formed by every broker on the same database
 * (db/024_kafka_cluster.sql, {@code queen.kafka_brokers}): at startup it takes its node id (configured, else the one
 * its advertised address held before, else a new one) and then, every {@code QUEEN_KAFKA_BROKER_HEARTBEAT_MS},
 * renews its registration and re-reads the live brokers into the {@link ClusterView} every Kafka API reads. A broker
 * silent for {@code QUEEN_KAFKA_BROKER_SESSION_TIMEOUT_MS} (killed) drops out of every view; on SIGTERM this broker
 * leaves at once and its own view stops naming it, so its clients move to the others while it drains.
 *
 * <p>A separate registry from {@code queen.live_brokers} (the console's figures) on purpose: that one is keyed by a
 * random id per process, published every few seconds with a sample of figures and kept a minute after a broker
 * stops; Kafka clients need an id that survives restarts, a one-second cadence, and a leave that takes effect at
 * once.
 *
 * <p>A broker whose database is away at boot registers as soon as its listener opens (once the database answers):
 * until then {@link #registered()} is false and readiness says so.
 *
 * <p>Thread-safety: the view is one volatile immutable snapshot, replaced by the timer thread (and the shutdown
 * observer); readers never lock. If a heartbeat fails (database unreachable) the last view stays in force for one
 * session timeout; after that this broker drops itself from it, as the others have.
 */
@ApplicationScoped
public class BrokerRegistry {
    private static final Logger LOG = Logger.getLogger(BrokerRegistry.class);

    @Inject
    QueenConfig queen;
    @Inject
    KafkaListener listener;
    @Inject
    BrokerStore store;
    private final UUID instance = UUID.randomUUID();
    private volatile ClusterView view;
    /** This broker as registered (null before): its id stays this process's even when its view leaves it out. */
    private volatile KafkaNode me;
    private volatile ClusterView unregistered;
    private volatile boolean leaving;
    private volatile long lastBeatNanos = System.nanoTime();
    private boolean takenOver;
    private ScheduledExecutorService timer;
    private final OutageWarning outage = new OutageWarning(LOG);

    private QueenConfig.Kafka config() {
        return queen.kafka();
    }

    private int heartbeatMs() {
        return Math.max(100, config().brokerHeartbeatMs());
    }

    /** At least two heartbeats: one late beat never takes a live broker out. */
    private int sessionMs() {
        return Math.max(2 * heartbeatMs(), config().brokerSessionTimeoutMs());
    }

    /**
     * After the listener is up (its port is what the broker advertises). A listener waiting for the database is
     * joined by the heartbeat timer once it listens; a configured node id held by another live broker fails the
     * boot, or, found later, stops the broker.
     */
    void start(@Observes @Priority(110) StartupEvent event) throws SQLException {
        if (!config().enabled()) {
            return;
        }
        if (listener.port() >= 0) {
            join();
        }
        timer = DaemonTimer.every("kafka-broker-heartbeat", heartbeatMs(), this::tick);
    }

    /** Whether this broker holds its node id (false while the Kafka listener is off or waits for the database). */
    public boolean registered() {
        return me != null;
    }

    /** First thing on SIGTERM: the other brokers take over this one's partitions and groups at their next beat. */
    void leave(@Observes @Priority(10) ShutdownDelayInitiatedEvent event) {
        leaveNow();
    }

    void stop(@Observes @Priority(2) ShutdownEvent event) {
        leaveNow();
    }

    private synchronized void leaveNow() {
        if (!config().enabled() || leaving) {
            return;
        }
        leaving = true;
        if (timer != null) {
            timer.shutdownNow();
        }
        view = view().withoutSelf();
        int id = nodeId();
        try {
            store.leave(id, instance);
            LOG.infof("Kafka node %d left the cluster", id);
        } catch (SQLException e) {
            LOG.warnf("Kafka node %d could not deregister (%s); it drops out after %d ms", id,
                    e.getMessage(), sessionMs());
        }
    }

    /** The cluster as this broker last read it; before its registration (or with Kafka off), this broker alone. */
    public ClusterView view() {
        ClusterView v = view;
        if (v != null) {
            return v;
        }
        ClusterView u = unregistered;
        if (u == null) {
            u = ClusterView.alone(advertised(config().nodeId().orElse(1)));
            unregistered = u;
        }
        return u;
    }

    /** This broker's node id. */
    public int nodeId() {
        KafkaNode m = me;
        return m != null ? m.id() : view().self().id();
    }

    private KafkaNode advertised(int id) {
        return new KafkaNode(id, listener.advertisedHost(), listener.advertisedPort(),
                config().rack().filter(r -> !r.isBlank()).orElse(null));
    }

    private void join() throws SQLException {
        KafkaNode address = advertised(ClusterView.NO_ID);
        Integer wanted = config().nodeId().isPresent() ? config().nodeId().getAsInt() : null;
        int id = store.join(wanted, instance, address, sessionMs());
        KafkaNode self = advertised(id);
        me = self;
        view = ClusterView.alone(self);
        LOG.infof("Kafka node %d registered as %s:%d", id, self.host(), self.port());
        beat();
    }

    /**
     * Renews the registration and re-reads the live brokers (the timer's job; tests call it to skip a wait). If
     * another process holds this broker's node id now (a broker restarted at the same address while this one
     * could not reach the database), this one takes itself out of its view: it leads and coordinates nothing more.
     */
    public synchronized void beat() throws SQLException {
        if (leaving) {
            return;
        }
        KafkaNode self = me;
        if (self == null) {
            return; // not registered (the listener is off)
        }
        List<BrokerStore.Live> rows = store.heartbeat(self.id(), instance, sessionMs());
        lastBeatNanos = System.nanoTime();
        List<KafkaNode> live = rows.stream().map(BrokerStore.Live::node).toList();
        ClusterView next = new ClusterView(self, live);
        if (rows.stream().noneMatch(BrokerStore.Live::mine)) {
            if (!takenOver) {
                LOG.errorf("Kafka node %d is registered by another process now: this broker leads and coordinates"
                        + " nothing until it restarts", self.id());
                takenOver = true;
            }
            // the id is the other process's now: this one stands in the view under no id
            next = new ClusterView(new KafkaNode(ClusterView.NO_ID, self.host(), self.port(), self.rack()), live);
        } else if (!next.nodes().equals(view().nodes())) {
            LOG.infof("Kafka cluster: live nodes %s", live.stream().map(KafkaNode::id).toList());
        }
        view = next;
    }

    private void tick() {
        if (me == null) {
            if (listener.port() >= 0) {
                outage.attempt(this::joinOrStop, "Kafka node registration failed");
            }
            return;
        }
        if (!outage.attempt(this::beat, "Kafka broker heartbeat failed")) {
            fenceIfSilent();
        }
    }

    /** A join after the boot: an unreachable database is retried at the next tick; a refusal stops the broker. */
    private synchronized void joinOrStop() throws SQLException {
        if (leaving || me != null) {
            return;
        }
        try {
            join();
        } catch (SQLException e) {
            if (SchemaApplier.unreachable(e)) {
                throw e;
            }
            LOG.errorf("Kafka node registration refused, the broker stops: %s", e.getMessage());
            Quarkus.asyncExit(1);
        }
    }

    /**
     * A broker that could not renew for a whole session is out of the others' views by now: it takes itself out
     * of its own too, so it stops coordinating groups another broker has taken over (it rejoins with its next
     * successful beat).
     */
    private synchronized void fenceIfSilent() {
        ClusterView v = view;
        if (leaving || v == null || System.nanoTime() - lastBeatNanos < TimeUnit.MILLISECONDS.toNanos(sessionMs())
                || !v.includesSelf()) {
            return;
        }
        LOG.warnf("Kafka node %d could not renew its registration for %d ms: it coordinates nothing until it can",
                nodeId(), sessionMs());
        view = v.withoutSelf();
    }
}
