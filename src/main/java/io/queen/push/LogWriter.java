package io.queen.push;

import io.queen.auth.Caller;
import io.queen.config.QueenConfig;
import io.queen.metrics.OpsMeter;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jboss.logging.Logger;

/**
 * Every write to the log, two ways in.
 *
 * <p>Fused writes ({@link #push}, {@link #produce}, {@link #replay}): items of many requests are committed
 * together per partition by {@link PushFusion}. Here, and only here, they are hashed, submitted lane by lane, and
 * the flushes the submits collected are run, always, also when a submit threw (a collected flush may carry other
 * requests' items: an unrun one would leave their futures uncompleted).
 *
 * <p>Writes inside a caller's transaction ({@link #inTransaction}): the caller owns the JDBC connection and its
 * COMMIT; {@link InTransaction} packs its segments, writes them with {@code queen.log_push_multi_v1} on that
 * connection, and after the COMMIT the caller runs {@link InTransaction#committed} (wakes the parked pops,
 * announces the queues to other brokers, counts the messages); after a rollback it drops the object.
 *
 * <p>Thread-safe (the beans it holds are); an {@link InTransaction} belongs to its caller's thread.
 */
@Singleton
public class LogWriter {
    private static final Logger LOG = Logger.getLogger(LogWriter.class);

    private final PushFusion fusion;
    private final PushStore store;
    private final PushEncryption encryption;
    private final PushHold hold;
    private final OpsMeter meter;
    private final Instance<PushFusion.CommitListener> listeners;
    private final int zstdLevel;

    LogWriter(PushFusion fusion, PushStore store, PushEncryption encryption, PushHold hold, OpsMeter meter,
            Instance<PushFusion.CommitListener> listeners, QueenConfig config) {
        this.fusion = fusion;
        this.store = store;
        this.encryption = encryption;
        this.hold = hold;
        this.meter = meter;
        this.listeners = listeners;
        this.zstdLevel = config.zstdLevel();
    }

    /** The items of one partition of a fused write, in order. */
    public record Lane(UUID tenant, String queue, String partition, List<PushItem> items) {
    }

    /**
     * The items as the log stores them: stamped with the caller's subject (never one from the body) and encrypted
     * for queues with {@code encryptionEnabled}. Throws the 400 {@link PushEncryption} names when such a queue has
     * no key on this broker.
     */
    public List<PushItem> stored(Caller caller, List<PushItem> items) throws SQLException {
        return encryption.apply(caller.tenant(), ProducerSub.stamp(caller, items));
    }

    /** The items encrypted for queues with {@code encryptionEnabled} (items no caller's subject is stamped on). */
    public List<PushItem> encrypted(UUID tenant, List<PushItem> items) throws SQLException {
        return encryption.apply(tenant, items);
    }

    /** Whether pushes are held back from the log now (push maintenance, or its spool still draining). */
    public boolean holdsPushes() throws SQLException, InterruptedException {
        return hold.holdsPushes();
    }

    // ---- fused writes ----

    /**
     * What an HTTP push did: the items as stored, and either {@code verdicts} (one per item, in request order,
     * all complete) or none: the request was held for push maintenance and every item is {@code buffered}.
     */
    public record Pushed(List<PushItem> items, List<PushFusion.Verdict> verdicts) {
        public boolean buffered() {
            return verdicts == null;
        }
    }

    /**
     * An HTTP push ({@code POST /push}): stamps and encrypts the items; during push maintenance (or its drain)
     * holds them durably and returns; otherwise collapses repeats of a (queue, partition, transactionId) onto the
     * first occurrence, fuses the rest, waits for every verdict (read-your-writes) and counts one push request per
     * queue the request names and every queued message. A repeat is answered {@code duplicate} of its first
     * occurrence when that one was queued, else as the first occurrence was.
     *
     * @throws IOException the hold could not keep the items: nothing was stored
     */
    public Pushed push(Caller caller, List<PushItem> parsed) throws SQLException, IOException {
        UUID tenant = caller.tenant();
        List<PushItem> items = stored(caller, parsed);
        if (held()) {
            hold.append(tenant, items);
            return new Pushed(items, null);
        }
        int n = items.size();
        int[] leaderOf = new int[n];
        record Key(String queue, String partition) {
        }
        record ItemKey(Key lane, String transactionId) {
        }
        Map<ItemKey, Integer> firstByKey = new HashMap<>(Math.max(16, n * 2));
        Map<Key, List<PushItem>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            Key lane = new Key(it.queue(), it.partition());
            Integer first = firstByKey.putIfAbsent(new ItemKey(lane, it.transactionId()), i);
            leaderOf[i] = first == null ? i : first;
            if (first == null) {
                byPartition.computeIfAbsent(lane, k -> new ArrayList<>()).add(it);
            }
        }
        List<Lane> lanes = new ArrayList<>(byPartition.size());
        byPartition.forEach((k, group) -> lanes.add(new Lane(tenant, k.queue(), k.partition(), group)));
        // every partition is submitted before any flush runs, so the request's partitions commit in parallel
        List<CompletableFuture<List<PushFusion.Verdict>>> submitted = fuse(lanes, null, false);
        List<String> queues = new ArrayList<>(2);
        for (Lane lane : lanes) {
            if (!queues.contains(lane.queue())) {
                queues.add(lane.queue());
                meter.queue(tenant, lane.queue()).increment(OpsMeter.PUSH_REQUESTS);
            }
        }
        PushFusion.Verdict[] byIndex = new PushFusion.Verdict[n];
        for (int l = 0; l < lanes.size(); l++) {
            List<PushItem> group = lanes.get(l).items();
            List<PushFusion.Verdict> laneVerdicts = submitted.get(l).join();
            for (int k = 0; k < group.size(); k++) {
                byIndex[group.get(k).index()] = laneVerdicts.get(k);
            }
            countQueued(lanes.get(l), laneVerdicts);
        }
        List<PushFusion.Verdict> verdicts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            PushFusion.Verdict v = byIndex[leaderOf[i]];
            if (leaderOf[i] != i && v.status() == PushFusion.Status.QUEUED) {
                v = new PushFusion.Verdict(PushFusion.Status.DUPLICATE, v.messageId(), v.partitionId(), -1, null,
                        false);
            }
            verdicts.add(v);
        }
        return new Pushed(items, verdicts);
    }

    /** {@link PushHold#holdsPushes}; interrupted while waiting for the drain, the push is held. */
    private boolean held() throws SQLException {
        try {
            return hold.holdsPushes();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /**
     * A Kafka Produce's lanes as written: per lane, a future of its verdicts in item order; {@code counted} follows
     * them all.
     */
    public record Produced(List<CompletableFuture<List<PushFusion.Verdict>>> verdicts,
            CompletableFuture<Void> counted) {
    }

    /**
     * A Kafka Produce: fuses lanes already {@link #stored} and returns at once (the request's order is fixed once its
     * items are queued), the flushes running on {@code runner}. Once every verdict is in, each lane none of whose
     * items failed counts one push request and its queued messages (a failed partition is answered an error as a
     * whole and retried by the client); {@link Produced#counted} completes after that count.
     */
    public Produced produce(List<Lane> lanes, Executor runner) {
        List<CompletableFuture<List<PushFusion.Verdict>>> submitted = fuse(lanes, runner, true);
        CompletableFuture<Void> counted = CompletableFuture.allOf(submitted.toArray(new CompletableFuture[0]))
                .thenRun(() -> {
                    for (int l = 0; l < lanes.size(); l++) {
                        List<PushFusion.Verdict> vs = submitted.get(l).join();
                        if (vs.stream().noneMatch(v -> v.status() == PushFusion.Status.FAILED)) {
                            OpsMeter.QueueMeter qm = meter.queue(lanes.get(l).tenant(), lanes.get(l).queue());
                            qm.increment(OpsMeter.PUSH_REQUESTS);
                            qm.add(OpsMeter.PUSH_MESSAGES, queued(vs));
                        }
                    }
                });
        return new Produced(submitted, counted);
    }

    /**
     * A spool drain: fuses lanes of items stored when they were held, waits for them and counts each lane's queued
     * messages (a held push was not counted when it was answered). The error of a failed item, or null when every
     * item is in the log (queued, or a duplicate of what an earlier attempt wrote).
     */
    public String replay(List<Lane> lanes) {
        List<CompletableFuture<List<PushFusion.Verdict>>> submitted = fuse(lanes, null, false);
        String error = null;
        for (int l = 0; l < lanes.size(); l++) {
            List<PushFusion.Verdict> vs = submitted.get(l).join();
            for (PushFusion.Verdict v : vs) {
                if (v.status() == PushFusion.Status.FAILED) {
                    error = v.error();
                }
            }
            countQueued(lanes.get(l), vs);
        }
        return error;
    }

    /**
     * The fused sequence: hashes and submits every lane, then runs the flushes the submits collected, here
     * ({@code runner} null: the first on this thread when it is virtual) or on {@code runner}. {@code patient}: the
     * caller pipelines requests (a Kafka producer), see {@link PushFusion#submit}.
     */
    private List<CompletableFuture<List<PushFusion.Verdict>>> fuse(List<Lane> lanes, Executor runner,
            boolean patient) {
        List<CompletableFuture<List<PushFusion.Verdict>>> out = new ArrayList<>(lanes.size());
        List<Runnable> flushes = new ArrayList<>(2);
        try {
            for (Lane lane : lanes) {
                out.add(fusion.submit(lane.tenant(), lane.queue(), lane.partition(), lane.items(),
                        SegmentPacker.hashes(lane.items()), patient, flushes));
            }
        } finally {
            if (runner == null) {
                fusion.run(flushes);
            } else if (!flushes.isEmpty()) {
                runner.execute(() -> fusion.run(flushes));
            }
        }
        return out;
    }

    /** Counts a lane's queued messages, if it has any. */
    private void countQueued(Lane lane, List<PushFusion.Verdict> verdicts) {
        int queued = queued(verdicts);
        if (queued > 0) {
            meter.queue(lane.tenant(), lane.queue()).add(OpsMeter.PUSH_MESSAGES, queued);
        }
    }

    private static int queued(List<PushFusion.Verdict> verdicts) {
        int queued = 0;
        for (PushFusion.Verdict v : verdicts) {
            if (v.status() == PushFusion.Status.QUEUED) {
                queued++;
            }
        }
        return queued;
    }

    // ---- writes inside a caller's transaction ----

    /** Writes to the log on {@code c}, inside the caller's open transaction, for {@code tenant}. */
    public InTransaction inTransaction(Connection c, UUID tenant) {
        return new InTransaction(c, tenant);
    }

    /**
     * The log writes of one caller's transaction. Each {@code write} is one {@code queen.log_push_multi_v1} call on
     * the caller's connection (partition rows locked in ascending id); a segment answered duplicate wrote nothing.
     * {@link #committed} runs what follows the caller's COMMIT; after a rollback the object is dropped.
     */
    public final class InTransaction {
        private final Connection c;
        private final UUID tenant;
        /** Messages written per queue, in first-write order. */
        private final Map<String, Integer> written = new LinkedHashMap<>();

        private InTransaction(Connection c, UUID tenant) {
            this.c = c;
            this.tenant = tenant;
        }

        public UUID tenant() {
            return tenant;
        }

        /**
         * Packs each list (the items of ONE partition, in order) into a segment whose dedup probe covers the
         * partition's whole window, and writes them; the results in list order.
         */
        public PushStore.SegmentResult[] write(List<List<PushItem>> segments) throws SQLException {
            List<PushStore.SegmentWrite> writes = new ArrayList<>(segments.size());
            for (List<PushItem> g : segments) {
                SegmentPacker.Packed packed = SegmentPacker.pack(g, zstdLevel);
                writes.add(PushStore.SegmentWrite.probed(tenant, g.get(0).queue(), g.get(0).partition(),
                        packed.count(), packed.hashes(), packed.blob()));
            }
            return writePacked(writes);
        }

        /** Writes segments packed already (a Kafka transaction's staged batches); the results in list order. */
        public PushStore.SegmentResult[] writePacked(List<PushStore.SegmentWrite> writes) throws SQLException {
            PushStore.SegmentResult[] results = store.pushBundle(c, writes);
            for (int i = 0; i < results.length; i++) {
                if (!results[i].duplicate()) {
                    written.merge(writes.get(i).queue(), writes.get(i).count(), Integer::sum);
                }
            }
            return results;
        }

        /** The queues written to so far, in first-write order. */
        public List<String> queues() {
            return List.copyOf(written.keySet());
        }

        /**
         * After the caller's COMMIT: for each queue written to, wakes the parked pops here, announces the queue to
         * the other brokers and counts the messages written.
         */
        public void committed() {
            for (Map.Entry<String, Integer> q : written.entrySet()) {
                for (PushFusion.CommitListener l : listeners) {
                    l.written(tenant, q.getKey());
                }
                meter.queue(tenant, q.getKey()).add(OpsMeter.PUSH_MESSAGES, q.getValue());
            }
        }
    }

    // ---- a segment written by a SQL function that moves as it writes ----

    /**
     * A dead letter moved back into the log ({@code queen.log_dlq_move_v1} writes it and deletes the row in one
     * transaction, outside the fusion): counted as a pushed message, and told to the commit listeners as a fused
     * commit is (a listener is a wake-up hint: one failing is logged, the re-check interval covers it).
     */
    public void moved(UUID tenant, String queue, String partition, UUID partitionId, long offset) {
        meter.queue(tenant, queue).increment(OpsMeter.PUSH_MESSAGES);
        List<PushFusion.Committed> c = List.of(new PushFusion.Committed(tenant, queue, partition, partitionId,
                offset));
        for (PushFusion.CommitListener l : listeners) {
            try {
                l.committed(c);
            } catch (RuntimeException e) {
                LOG.warnf("commit listener failed after a DLQ replay: %s", e.toString());
            }
        }
    }
}
