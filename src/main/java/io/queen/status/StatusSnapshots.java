package io.queen.status;

import io.queen.background.DaemonTimer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.api.Json;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Snapshots of the costly status answers (overview, status summary, queue detail and lists over many partitions).
 * An answer is computed from watermarks and cursors on request; only when that took at least
 * {@code queen.status.snapshot-threshold-ms} is it kept, and from then on a background thread recomputes it every
 * {@code queen.status.snapshot-refresh-ms} while it is asked for, so a dashboard polling a 10,000-partition
 * deployment is answered from memory instead of re-running an O(partitions) aggregate on every poll. The answer
 * carries {@code statsAge}: seconds since its figures were computed (0 for a fresh one).
 *
 * <p>Invariants: a snapshot is served only while younger than twice the refresh interval (after that the request
 * computes it itself); an answer that is cheap to compute is never kept, so small deployments always read fresh
 * figures; a snapshot not asked for during {@code queen.status.snapshot-idle-ms} is dropped; at most
 * {@code queen.status.snapshot-max-entries} holding at most {@code queen.status.snapshot-max-mb} of JSON are kept (a
 * new costly answer beyond either is served fresh, not kept);
 * snapshots are keyed by tenant, so no tenant is served another's. A failed answer (404, 400, database error) is
 * never kept. {@link #invalidate} (POST /api/v1/stats/refresh) drops a tenant's snapshots.
 *
 * <p>Thread-safety: request threads and the refresher share the map; each entry's value is an immutable published
 * reference (the cached tree is never modified after publication: a served answer is a shallow copy).
 */
@Singleton
public class StatusSnapshots {
    private static final Logger LOG = Logger.getLogger(StatusSnapshots.class);

    /** Builds one answer; must not read request state (it also runs on the refresher thread). */
    @FunctionalInterface
    public interface Answer {
        ObjectNode compute() throws SQLException;
    }

    private record Key(UUID tenant, String what) {
    }

    /**
     * A computed answer, serialized once: {@code json} is an object without {@code asOf} and {@code statsAge};
     * {@code asOfMillis} is the wall-clock time its computation began.
     */
    private record Value(byte[] json, long computedAtNanos, long asOfMillis) {
    }

    private static final class Entry {
        final Answer answer;
        volatile Value value;
        volatile long lastAskedNanos;

        Entry(Answer answer, Value value, long now) {
            this.answer = answer;
            this.value = value;
            this.lastAskedNanos = now;
        }
    }

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
    private final long thresholdNanos;
    private final long refreshMs;
    private final long maxAgeNanos;
    private final long idleNanos;
    private final int maxEntries;
    private final long maxBytes;
    /** JSON bytes held by the kept snapshots. */
    private final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
    private ScheduledExecutorService refresher;

    StatusSnapshots(StatusConfig config) {
        this.thresholdNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.snapshotThresholdMs()));
        this.refreshMs = Math.max(100, config.snapshotRefreshMs());
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(2 * refreshMs);
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(refreshMs, config.snapshotIdleMs()));
        this.maxEntries = Math.max(0, config.snapshotMaxEntries());
        this.maxBytes = Math.max(0, config.snapshotMaxMb()) * 1024L * 1024L;
    }

    void start(@Observes StartupEvent event) {
        refresher = DaemonTimer.every("queen-status-snapshots", refreshMs, this::refreshAll);
    }

    void stop(@Observes ShutdownEvent event) {
        if (refresher != null) {
            refresher.shutdownNow();
        }
    }

    /**
     * The answer of {@code what} (a key naming the route and every parameter that shapes the answer) for
     * {@code tenant}: a kept snapshot when there is a young enough one, else computed now (and kept if costly).
     */
    public Response serve(UUID tenant, String what, Answer answer) throws SQLException {
        Key key = new Key(tenant, what);
        long now = System.nanoTime();
        Entry e = entries.get(key);
        if (e != null) {
            e.lastAskedNanos = now;
            Value v = e.value;
            if (now - v.computedAtNanos() <= maxAgeNanos) {
                return answer(v.json(), now - v.computedAtNanos(), v.asOfMillis());
            }
        }
        long asOf = System.currentTimeMillis();
        byte[] json = serialize(answer.compute());
        long done = System.nanoTime();
        if (done - now >= thresholdNanos && thresholdNanos > 0) {
            Value v = new Value(json, now, asOf);
            if (e != null) {
                replace(key, e, v);
            } else if (entries.size() < maxEntries && bytes.get() + json.length <= maxBytes) {
                if (entries.putIfAbsent(key, new Entry(answer, v, now)) == null) {
                    bytes.addAndGet(json.length);
                }
            }
        } else if (e != null) {
            drop(key, e);  // cheap again: fresh figures from now on
        }
        return answer(json, 0, asOf);
    }

    private static byte[] serialize(ObjectNode body) {
        body.remove("statsAge");
        body.remove("asOf");
        try {
            return Json.MAPPER.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e);
        }
    }

    /**
     * The kept bytes with {@code "asOf": time, "statsAge": seconds} as their last members: a copy, not a
     * re-serialization (a 10,000-partition queue detail is megabytes of JSON). {@code asOf} is when the figures'
     * computation began: everything committed before it is in them, nothing committed after it need be.
     */
    static Response answer(byte[] json, long ageNanos, long asOfMillis) {
        byte[] tail = ((json.length > 2 ? "," : "") + "\"asOf\":\"" + Instant.ofEpochMilli(asOfMillis) + "\",\"statsAge\":"
                + TimeUnit.NANOSECONDS.toSeconds(ageNanos) + "}").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(json, json.length - 1 + tail.length);  // drops the closing brace
        System.arraycopy(tail, 0, out, json.length - 1, tail.length);
        return Response.ok(out, MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** A snapshot key: the route and every value that shapes its answer (null = absent). */
    public static String key(String route, Object... parts) {
        StringBuilder b = new StringBuilder(route);
        for (Object p : parts) {
            b.append('\u001f').append(p == null ? "\u0000" : p.toString());
        }
        return b.toString();
    }

    /** Drops every snapshot of {@code tenant}; returns how many there were. */
    public int invalidate(UUID tenant) {
        int n = 0;
        for (Map.Entry<Key, Entry> me : entries.entrySet()) {
            if (me.getKey().tenant().equals(tenant) && drop(me.getKey(), me.getValue())) {
                n++;
            }
        }
        return n;
    }

    /** Accounting of an entry's bytes happens under its monitor, so a drop and a replace never race. */
    private boolean drop(Key key, Entry e) {
        synchronized (e) {
            if (entries.remove(key, e)) {
                bytes.addAndGet(-e.value.json().length);
                return true;
            }
            return false;
        }
    }

    /** A newer value for a kept entry; dropped instead when it no longer fits the byte budget. */
    private void replace(Key key, Entry e, Value v) {
        synchronized (e) {
            long delta = v.json().length - e.value.json().length;
            if (bytes.get() + delta > maxBytes) {
                drop(key, e);
                return;
            }
            if (entries.get(key) == e) {
                bytes.addAndGet(delta);
            }
            e.value = v;
        }
    }

    /** JSON bytes the kept snapshots hold. */
    public long bytes() {
        return bytes.get();
    }

    /** Snapshots kept right now (all tenants). */
    public int size() {
        return entries.size();
    }

    /** One refresher round: recompute what was asked for recently, drop what was not. */
    void refreshAll() {
        long now = System.nanoTime();
        List<Map.Entry<Key, Entry>> due = new ArrayList<>();
        for (Map.Entry<Key, Entry> me : entries.entrySet()) {
            Entry e = me.getValue();
            if (now - e.lastAskedNanos > idleNanos) {
                drop(me.getKey(), e);
            } else {
                due.add(me);
            }
        }
        for (Map.Entry<Key, Entry> me : due) {
            Entry e = me.getValue();
            try {
                long t0 = System.nanoTime();
                long asOf = System.currentTimeMillis();
                replace(me.getKey(), e, new Value(serialize(e.answer.compute()), t0, asOf));
            } catch (Exception ex) {
                // the queue may be gone (404) or the database away: stop keeping it; a request recomputes
                drop(me.getKey(), e);
                LOG.debugf("status snapshot %s dropped: %s", me.getKey().what(), ex.toString());
            }
        }
    }
}
