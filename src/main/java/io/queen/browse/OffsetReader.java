package io.queen.browse;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import io.quarkus.runtime.Startup;
import jakarta.inject.Inject;
import io.queen.config.QueenConfig;
import io.queen.pop.ParkingBudget;
import io.queen.wakeup.PopWaiters;
import io.queen.wakeup.WakeSignal;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The batched read by absolute offset ({@code queen.log_fetch_v1}) with its optional wait, shared by
 * {@code POST /api/v1/fetch} and the Kafka listener's Fetch: a read that found fewer than {@code minBytes} (and no
 * error) parks, without a database connection, on the same wake-up signal as a long-polling pop (a commit to the
 * queue on this broker or, through NOTIFY, on another) and reads again, until the deadline. An entry at its
 * partition's high watermark where nothing was written since it was last read is answered from
 * {@link KnownWatermarks} without the database, so a reader parked on many partitions that wakes for a push to
 * another one reads nothing, and one that woke for its own reads only the partitions that moved. A read that may wait
 * holds a place among the parked long polls ({@link ParkingBudget}); beyond the caps it answers what there is at
 * once. Stateless, thread-safe; blocks the calling (virtual) thread.
 */
@Startup  // its meters are exported from the start, not from the first read
@ApplicationScoped
public class OffsetReader {
    @Inject ReadStore store;
    @Inject PopWaiters waiters;
    @Inject ParkingBudget parking;
    @Inject QueenConfig config;
    @Inject KnownWatermarks watermarks;
    @Inject MeterRegistry registry;
    private Counter fromMemory;
    private Counter fromDatabase;

    @PostConstruct
    void meters() {
        String what = "entries of reads by offset (Kafka Fetch, POST /api/v1/fetch)";
        fromMemory = Counter.builder("queen.fetch.entries").tag("read", "memory")
                .description(what + " answered from memory: at the high watermark, nothing written since")
                .register(registry);
        fromDatabase = Counter.builder("queen.fetch.entries").tag("read", "database")
                .description(what + " read from PostgreSQL").register(registry);
    }

    /** A parked read re-reads on this interval only if a wake-up was lost (the pops' safety net). */
    private long recheckNanos() {
        return Math.max(1, config.pop().recheckIntervalMs()) * 1_000_000L;
    }

    /** Reads the entries; {@code clientAddress} is the address the parking caps count the wait against. */
    public List<ReadStore.FetchRow> read(UUID tenant, String clientAddress, String[] queues, String[] partitions,
            Long[] offsets, Integer[] maxBytes, long budget, int maxRecords, long maxWaitMs, long minBytes)
            throws SQLException {
        if (queues.length == 0) {
            return List.of();
        }
        ParkingBudget.Place place = null;
        if (maxWaitMs > 0 && minBytes > 0) {
            place = parking.admit(clientAddress);
        }
        try {
            return read(tenant, queues, partitions, offsets, maxBytes, budget, maxRecords,
                    place == null ? 0 : maxWaitMs, minBytes);
        } finally {
            if (place != null) {
                place.close();
            }
        }
    }

    private List<ReadStore.FetchRow> read(UUID tenant, String[] queues, String[] partitions, Long[] offsets,
            Integer[] maxBytes, long budget, int maxRecords, long maxWaitMs, long minBytes) throws SQLException {
        long deadline = System.nanoTime() + maxWaitMs * 1_000_000L;
        boolean oneQueue = Arrays.stream(queues).distinct().count() == 1;
        WakeSignal signal = oneQueue ? waiters.hold(tenant, queues[0]) : waiters.tenant(tenant);
        try {
            while (true) {
                long seen = signal.generation();
                List<ReadStore.FetchRow> rows = readOnce(tenant, queues, partitions, offsets, maxBytes, budget,
                        maxRecords);
                long bytes = 0;
                boolean error = false;
                for (ReadStore.FetchRow r : rows) {
                    bytes += r.segment() == null ? 0 : r.segment().blob().length;
                    error |= r.error() != null;
                }
                long left = deadline - System.nanoTime();
                if (maxWaitMs == 0 || minBytes == 0 || bytes >= minBytes || error || left <= 0) {
                    return rows;
                }
                try {
                    // bounded: a lost wake-up costs at most one re-check interval
                    signal.awaitChange(seen, Math.min(left, recheckNanos()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return rows;
                }
            }
        } finally {
            waiters.release(signal);
        }
    }

    /**
     * One read: an entry at its partition's high watermark with nothing written there since it was last read
     * ({@link KnownWatermarks}) is answered from memory, the others by {@code queen.log_fetch_v1}; rows in entry
     * order, as that function gives them.
     */
    private List<ReadStore.FetchRow> readOnce(UUID tenant, String[] queues, String[] partitions, Long[] offsets,
            Integer[] maxBytes, long budget, int maxRecords) throws SQLException {
        int n = queues.length;
        long now = System.nanoTime();
        long[] stamps = new long[n];
        List<ReadStore.FetchRow> rows = new ArrayList<>(n);
        int[] unread = new int[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            // read before the database is: a write it does not see moves the stamp afterwards
            stamps[i] = waiters.writeStampIfTracked(tenant, queues[i], partitions[i]);
            KnownWatermarks.Known k = offsets[i] == null ? null
                    : watermarks.caughtUp(tenant, queues[i], partitions[i], offsets[i], stamps[i], now);
            if (k != null) {
                rows.add(new ReadStore.FetchRow(i, null, k.high(), k.logStart(), null));
            } else {
                unread[m++] = i;
            }
        }
        fromMemory.increment(n - m);
        if (m == 0) {
            return rows;
        }
        fromDatabase.increment(m);
        List<ReadStore.FetchRow> read = m == n
                ? store.fetch(tenant, queues, partitions, offsets, maxBytes, budget, maxRecords)
                : store.fetch(tenant, pick(queues, unread, m, new String[m]),
                        pick(partitions, unread, m, new String[m]), pick(offsets, unread, m, new Long[m]),
                        pick(maxBytes, unread, m, new Integer[m]), budget, maxRecords);
        for (ReadStore.FetchRow r : read) {
            int i = unread[r.ordinal()];
            rows.add(m == n ? r : new ReadStore.FetchRow(i, r.error(), r.highWatermark(), r.logStart(), r.segment()));
            if (r.error() != null) {
                continue;
            }
            if (stamps[i] >= 0) {
                watermarks.found(tenant, queues[i], partitions[i], r.highWatermark(), r.logStart(), stamps[i], now);
            } else {
                waiters.queue(tenant, queues[i]);  // the queue exists: its wake-ups count from now on
            }
        }
        if (m < n) {
            rows.sort(Comparator.comparingInt(ReadStore.FetchRow::ordinal));  // stable: segments keep their order
        }
        return rows;
    }

    private static <T> T[] pick(T[] all, int[] index, int m, T[] into) {
        for (int j = 0; j < m; j++) {
            into[j] = all[index[j]];
        }
        return into;
    }
}
