package io.queen.live;

import io.queen.background.DaemonTimer;
import io.queen.background.OutageWarning;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.config.QueenConfig;
import io.queen.metrics.OpsMeter;
import io.queen.metrics.ProcessStats;
import io.queen.workers.WorkerRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/**
 * Every {@code queen.live.publish-ms}, reads this broker's cumulative operation counts ({@link OpsMeter}, without
 * draining them), derives per-queue and broker push/pop/ack rates over the last {@code queen.live.window-ms} and
 * writes them, with the clients of its recent leases ({@link PopClients}), as this broker's one row of
 * {@code queen.live_brokers}: one statement per interval, nothing on the request path.
 *
 * <p>Invariants: a rate is (count now - count at the oldest kept sample inside the window) / the time between them,
 * so it is never negative (the counts are monotone) and 0 before a second sample exists. Thread-safety: the
 * samples are touched by the timer thread only ({@link #publishNow} is synchronized for tests).
 */
@Singleton
public class LiveSampler {
    private static final Logger LOG = Logger.getLogger(LiveSampler.class);
    /** Lease clients published: those taken within this span (longer than any usual lease), newest first. */
    static final long LEASE_CLIENTS_MS = 15 * 60_000L;
    static final int MAX_LEASE_CLIENTS = 1000;
    /** Poppers published: those seen within this span. */
    static final long POPPERS_MS = 5 * 60_000L;

    private record Key(UUID tenant, String queue) {
    }

    private record Snapshot(long atMs, Map<Key, long[]> queues, long[] broker) {
    }

    private final OpsMeter meter;
    private final ProcessStats process;
    private final WorkerRegistry worker;
    private final LiveStore store;
    private final PopClients clients;
    private final long publishMs;
    private final long windowMs;
    private final UUID brokerId = UUID.randomUUID();
    private final Instant startedAt = Instant.now();
    private final Deque<Snapshot> samples = new ArrayDeque<>();
    private ScheduledExecutorService timer;
    private final OutageWarning outage = new OutageWarning(LOG);

    LiveSampler(OpsMeter meter, ProcessStats process, WorkerRegistry worker, LiveStore store, PopClients clients,
            QueenConfig config) {
        this.worker = worker;
        this.meter = meter;
        this.process = process;
        this.store = store;
        this.clients = clients;
        this.publishMs = Math.max(100, config.live().publishMs());
        this.windowMs = Math.max(publishMs, config.live().windowMs());
    }

    void start(@Observes @Priority(30) StartupEvent event) {
        timer = DaemonTimer.every("queen-live-publish", publishMs, this::tick);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** How often brokers publish (readers consider a row fresh for a few of these). */
    public long publishMs() {
        return publishMs;
    }

    public long windowMs() {
        return windowMs;
    }

    private void tick() {
        outage.attempt(this::publishNow, "live figures not published");
    }

    /** Samples the counters and writes this broker's row now (the timer's job; tests call it too). */
    public synchronized void publishNow() throws java.sql.SQLException {
        long now = System.currentTimeMillis();
        Snapshot current = snapshot(now);
        samples.addLast(current);
        // keep one sample at or beyond the window's start: the base of the rates
        while (samples.size() > 2) {
            java.util.Iterator<Snapshot> it = samples.iterator();
            it.next();
            if (now - it.next().atMs() < windowMs) {
                break;
            }
            samples.removeFirst();
        }
        Snapshot base = samples.peekFirst();
        double seconds = (now - base.atMs()) / 1000.0;
        ObjectNode sample = Json.MAPPER.createObjectNode();
        sample.put("windowMs", now - base.atMs());
        sample.set("totals", figures(current.broker(), base.broker(), seconds));
        ArrayNode queues = sample.putArray("queues");
        for (Map.Entry<Key, long[]> e : current.queues().entrySet()) {
            ObjectNode q = figures(e.getValue(), base.queues().get(e.getKey()), seconds);
            q.put("t", e.getKey().tenant() == null ? null : e.getKey().tenant().toString());
            q.put("q", e.getKey().queue());
            queues.add(q);
        }
        ObjectNode leases = sample.putObject("leases");
        clients.leasesSince(now - LEASE_CLIENTS_MS, MAX_LEASE_CLIENTS).forEach((id, c) -> leases.putObject(id)
                .put("address", c.address()).put("userAgent", c.userAgent())
                .put("at", Instant.ofEpochMilli(c.atMs()).toString()));
        ArrayNode poppers = sample.putArray("poppers");
        for (PopClients.Popper p : clients.poppersSince(now - POPPERS_MS)) {
            poppers.addObject().put("t", p.tenant() == null ? null : p.tenant().toString()).put("q", p.queue())
                    .put("g", p.group()).put("address", p.address()).put("userAgent", p.userAgent())
                    .put("at", Instant.ofEpochMilli(p.lastMs()).toString()).put("pops", p.pops());
        }
        int keepSeconds = (int) Math.max(60, publishMs * 30 / 1000);
        java.util.OptionalInt id = worker.workerId();
        if (id.isEmpty()) {
            return;   // not registered yet (the database was away at boot): the row would carry no id
        }
        store.publish(brokerId, process.hostname(), id.getAsInt(), process.port(), startedAt,
                sample.toString(), keepSeconds);
    }

    private Snapshot snapshot(long now) {
        Map<Key, long[]> queues = new HashMap<>();
        long[] broker = new long[OpsMeter.COUNTERS];
        for (OpsMeter.QueueMeter m : meter.meters()) {
            long[] v = m.cumulative();
            add(broker, v);
            if (m.queue() != null && !OpsMeter.OTHER.equals(m.queue())) {
                queues.put(new Key(m.tenant(), m.queue()), v);
            }
        }
        add(broker, meter.unattributed().cumulative());
        return new Snapshot(now, queues, broker);
    }

    private static void add(long[] into, long[] v) {
        for (int i = 0; i < into.length; i++) {
            into[i] += v[i];
        }
    }

    /** Rates per second over the window and the cumulative counts; a queue new in the window starts from 0. */
    private static ObjectNode figures(long[] now, long[] base, double seconds) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        int[] fields = {OpsMeter.PUSH_MESSAGES, OpsMeter.POP_MESSAGES, OpsMeter.ACK_MESSAGES};
        String[] names = {"push", "pop", "ack"};
        String[] totals = {"pushed", "popped", "acked"};
        for (int i = 0; i < fields.length; i++) {
            long delta = now[fields[i]] - (base == null ? 0 : base[fields[i]]);
            o.put(names[i], seconds <= 0 ? 0.0 : Math.round(Math.max(0, delta) / seconds * 100) / 100.0);
            o.put(totals[i], now[fields[i]]);
        }
        return o;
    }
}
