package io.queen.push;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.config.QueenConfig;
import io.queen.queue.QueueDeletion;
import io.queen.api.Failures;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The fusion layer between push requests and the log.
 *
 * <p>Invariants: (1) at most ONE flush per partition is in flight; while it is, that partition's next segment
 * keeps accumulating and is dispatched the moment the flush completes, so segment size emerges from load (one
 * message at low load, larger under load) and there is no segment-size setting; (2) several ready partitions are
 * committed together in one SQL call (one transaction, one fsync), at most {@code bundle-max} per bundle and
 * {@code max-inflight-bundles} bundles per shard, and a shard with a commit in flight starts another only while the
 * broker is not busy ({@link CommitLoad}) or a ready partition holds a closed-loop caller's items; (3) frames of
 * one partition are committed in arrival order.
 * A repeat of a transaction id inside one accumulating segment follows the first occurrence (layer-2 dedup);
 * repeats across segments are caught by the SQL probe against the hash sidecar.
 *
 * <p>Thread-safety: a (tenant, queue, partition) always maps to the same shard, and all of a shard's state is
 * touched only by tasks of its {@link ShardLoop}, one at a time, so per-partition state needs no locks. Those
 * tasks run on the submitting threads (a request's arrival on the request's virtual thread, a flush's result on
 * the flush's). Compression and the SQL call run outside the loop: a flush an arrival starts on the pushing
 * request's own virtual thread ({@link #run}), any other on a virtual thread of its own. Callers wait on futures.
 */
@Singleton
public class PushFusion implements QueueDeletion.Listener {
    private static final Logger LOG = Logger.getLogger(PushFusion.class);

    public enum Status { QUEUED, DUPLICATE, FAILED }

    /**
     * What happened to one pushed item. {@code offset} is -1 unless queued; {@code error} is safe to show a client
     * (never driver text); {@code retryable} marks a failure a client retry may cure (database unavailable,
     * lock contention), answered 503 with Retry-After.
     */
    public record Verdict(Status status, UUID messageId, UUID partitionId, long offset, String error,
            boolean retryable) {
        static Verdict failed(String error) {
            return new Verdict(Status.FAILED, null, null, -1, error, false);
        }

        /** A failed write: transient causes are retryable; any other is logged under a request id the answer names. */
        static Verdict failed(Throwable t) {
            String reason = Failures.unavailableReason(t);
            if (reason != null) {
                return new Verdict(Status.FAILED, null, null, -1, reason, true);
            }
            String id = Failures.newRequestId();
            LOG.errorf(t, "push failed, requestId %s", id);
            return new Verdict(Status.FAILED, null, null, -1, Failures.INTERNAL + ", requestId " + id, false);
        }
    }

    /** A committed segment, for wake-ups of waiting pops. */
    public record Committed(UUID tenant, String queue, String partition, UUID partitionId, long endOffset) {
    }

    /** Told after every commit of the log, on the committing thread; must not block for long. */
    public interface CommitListener {
        /** Fused segments committed (a DLQ replay's segment is told the same way). */
        void committed(List<Committed> segments);

        /** A caller's own transaction wrote to {@code queue} and committed (its partitions are not told). */
        void written(UUID tenant, String queue);
    }

    private final Shard[] shards;
    private final PushStore store;
    private final int zstdLevel;
    private final int bundleMax;
    private final int maxInflight;
    private final CommitLoad commitLoad;
    private final MeterRegistry registry;
    /** Removed when this broker stops: a gauge left behind would go on reporting this instance's state. */
    private final List<Gauge> gauges = new ArrayList<>(3);
    private final Counter overdueCommits;
    /** Partitions with writes ready and no bundle yet, across shards. */
    private final AtomicInteger readyLanes = new AtomicInteger();
    private final ExecutorService io = Executors.newVirtualThreadPerTaskExecutor();
    /**
     * Runs the sweep rounds ({@link #sweepRound}, every {@code queen.push.lane-sweep-ms}); commits in flight
     * past {@code queen.push.commit-hold-ms} stop counting towards {@code queen.push.busy-commits} (checked every
     * half of it).
     */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "push-fusion-timer");
        t.setDaemon(true);
        return t;
    });
    /**
     * A lane with nothing pending or in flight for this long is dropped with its dedup index (its hashes leave
     * the global budget); the next push to that partition starts cold (SQL probes the whole window once, then
     * the index is rebuilt from the sidecar). Without this, lanes of idle or deleted partitions kept their
     * hashes for the whole window (an hour by default) and, once they filled the budget, every push of every
     * other partition probed its whole window in SQL.
     */
    static final long LANE_IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** The default dedup budget: 68k msg/s x a 60 s window (the soak preset) is 4.1M, so ~3x headroom. */
    static final long DEFAULT_DEDUP_ENTRIES = 12_000_000;
    /** Heap per indexed hash at worst: a {@link FingerprintSet} slot at load 0.25 plus the span's copy. */
    static final int DEDUP_BYTES_PER_ENTRY = 40;

    /**
     * The budget of hashes: as configured, else the default capped so that a full budget takes at most a
     * quarter of the maximum heap (a 1 GB heap gets ~6.7M, not an OutOfMemoryError at 12M).
     */
    static long dedupBudget(OptionalLong configured, long maxHeapBytes) {
        return configured.orElse(Math.min(DEFAULT_DEDUP_ENTRIES, maxHeapBytes / 4 / DEDUP_BYTES_PER_ENTRY));
    }
    private final Instance<CommitListener> listeners;
    private final AtomicLong cachedHashes = new AtomicLong();
    private final long dedupBudget;
    private final boolean budgetConfigured;
    private final Counter messages;
    private final Counter segments;
    private final Counter commits;
    private final Counter duplicates;
    private final Counter vouched;
    private final Counter fullProbes;
    private final Counter budgetExhausted;
    private final Counter rebuilds;
    /** Times an index was refused for lack of budget; a sweep round that sees it moved frees idle lanes' indexes. */
    private final AtomicLong refusals = new AtomicLong();
    /** The refusals the previous sweep round saw (touched by the sweep rounds only, one at a time). */
    private long refusalsSwept;
    /** Sweep rounds started; an index refused in one round is not rebuilt before the next. */
    private final AtomicLong sweepRounds = new AtomicLong();
    /** When the last "budget spent" warning was logged (nanoTime); one a minute at most. */
    private final AtomicLong budgetWarnedAt = new AtomicLong(System.nanoTime() - TimeUnit.MINUTES.toNanos(2));
    private final DistributionSummary segmentSize;

    PushFusion(PushStore store, QueenConfig config, MeterRegistry registry, Instance<CommitListener> listeners) {
        this.store = store;
        this.registry = registry;
        this.zstdLevel = config.zstdLevel();
        this.bundleMax = Math.max(1, config.push().bundleMax());
        this.maxInflight = Math.max(1, config.push().maxInflightBundles());
        this.listeners = listeners;
        this.dedupBudget = dedupBudget(config.push().dedupCacheEntries(), Runtime.getRuntime().maxMemory());
        this.budgetConfigured = config.push().dedupCacheEntries().isPresent();
        int n = Math.max(1, config.push().fusionShards());
        this.shards = new Shard[n];
        for (int i = 0; i < n; i++) {
            shards[i] = new Shard();
        }
        long sweepMs = Math.max(100, config.push().laneSweepMs());
        timer.scheduleWithFixedDelay(this::sweepRound, sweepMs, sweepMs, TimeUnit.MILLISECONDS);
        this.messages = Counter.builder("queen.push.messages").description("messages committed to the log")
                .register(registry);
        this.segments = Counter.builder("queen.push.segments").description("segments committed").register(registry);
        this.commits = Counter.builder("queen.push.commits").description("push transactions committed")
                .register(registry);
        this.duplicates = Counter.builder("queen.push.duplicates").description("items answered duplicate")
                .register(registry);
        gauges.add(Gauge.builder("queen.push.dedup.cached.hashes", cachedHashes, Number::doubleValue)
                .strongReference(true).description("entries held by the broker-side dedup indexes (a fingerprint per"
                        + " transaction id, a range per run of a Kafka idempotent producer's sequences)")
                .register(registry));
        // strong: a weakly held broker may be collected first and the family vanish from the scrape
        gauges.add(Gauge.builder("queen.push.dedup.capacity.hashes", this, f -> f.dedupBudget)
                .strongReference(true)
                .description("entries the broker-side dedup indexes may hold (QUEEN_DEDUP_CACHE_ENTRIES"
                        + " or derived from the heap); at capacity, indexes are dropped or left cold")
                .register(registry));
        this.vouched = Counter.builder("queen.push.dedup.vouched")
                .description("segments whose dedup probe the broker narrowed with its index").register(registry);
        this.fullProbes = Counter.builder("queen.push.dedup.full.probes")
                .description("segments whose dedup probe scanned the whole window in SQL").register(registry);
        this.budgetExhausted = Counter.builder("queen.push.dedup.budget.exhausted")
                .description("times a partition's dedup index was dropped or left cold because the budget was spent")
                .register(registry);
        this.rebuilds = Counter.builder("queen.push.dedup.rebuilds")
                .description("cold dedup indexes loaded from the sidecar (a partition's first push on this broker,"
                        + " or its first after the index was dropped)")
                .register(registry);
        this.segmentSize = DistributionSummary.builder("queen.push.segment.messages")
                .description("messages per committed segment").register(registry);
        this.overdueCommits = Counter.builder("queen.push.commits.overdue")
                .description("push commits that ran past queen.push.commit-hold-ms and stopped counting towards"
                        + " queen.push.busy-commits (a commit stalled on a lock, or an overloaded database)")
                .register(registry);
        gauges.add(Gauge.builder("queen.push.partitions.ready", readyLanes, Number::doubleValue)
                .strongReference(true)
                .description("partitions with writes waiting for their bundle: while the broker is busy"
                        + " (queen.push.busy-commits), the Kafka writes of a shard with a commit in flight share its"
                        + " next commit")
                .register(registry));
        long hold = Math.max(1, config.push().commitHoldMs());
        this.commitLoad = new CommitLoad(config.push().busyCommits(), TimeUnit.MILLISECONDS.toNanos(hold),
                System::nanoTime);
        if (commitLoad.enabled()) {  // overdue commits matter only where a busy broker holds work back
            timer.scheduleWithFixedDelay(() -> {
                for (Shard sh : shards) {
                    sh.loop.execute(sh::expireOverdue);
                }
            }, hold, Math.max(1, hold / 2), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A deleted queue's lanes leave at once with their dedup indexes (otherwise their hashes hold the global budget
     * until the idle sweep, and a busy queue deleted and recreated, as every benchmark run does, pushes the next
     * one over it). Lanes with work in flight are left to the idle sweep.
     */
    @Override
    public void deleted(UUID tenant, String queue) {
        onEveryShard(sh -> sh.sweep(tenant, queue));
    }

    /**
     * One sweep of every shard's lanes (every {@code queen.push.lane-sweep-ms} on the timer): lanes idle for
     * {@link #LANE_IDLE_NANOS} leave with their indexes. If indexes were refused for lack of budget since the previous
     * round, so do the lanes nobody pushed to since that round: a queue that went quiet gives its share of the budget
     * to the busy ones within a round, instead of holding it for the idle time while their pushes probe their whole
     * window in SQL. Refused indexes may be rebuilt from the next round on. Returns once every shard has swept.
     */
    synchronized void sweepRound() {
        long refused = refusals.get();
        boolean pressed = refused != refusalsSwept;
        refusalsSwept = refused;
        onEveryShard(sh -> sh.sweep(pressed));
        sweepRounds.incrementAndGet();
    }

    /** Runs the task on every shard's loop and waits (a few seconds at most) until all have run it. */
    private void onEveryShard(java.util.function.Consumer<Shard> task) {
        List<Future<?>> done = new ArrayList<>(shards.length);
        for (Shard sh : shards) {
            CompletableFuture<Void> ran = new CompletableFuture<>();
            sh.loop.execute(() -> {
                try {
                    task.accept(sh);
                } finally {
                    ran.complete(null);
                }
            });
            done.add(ran);
        }
        try {
            for (Future<?> f : done) {
                f.get(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // what a shard did not sweep now, its next round does
        }
    }

    @PreDestroy
    void stop() {
        gauges.forEach(registry::remove);
        timer.shutdownNow();
        io.shutdown();
    }

    /**
     * Queues items of ONE partition, in order, for its next segment; they arrive at the shard together so a
     * request is never split across segments by the fire-on-idle dispatch. The answer completes once every item has
     * its verdict, with the verdicts in item order (one completion per lane, not one per item: a Kafka batch
     * carries hundreds of records). {@code hashes.get(i)} is item i's
     * 16-byte transaction hash. {@code patient}: the caller keeps other requests in flight while this one waits (a
     * Kafka producer pipelines up to five per connection), so while the broker is busy these items may wait for
     * their shard's commit in flight; a closed-loop caller (an HTTP push, a spool drain) sends nothing more until
     * answered, so its items never wait for another commit. A flush this arrival starts (it may carry other
     * requests' items too) is added to {@code flushes}; the caller must hand that list to {@link #run} once it has
     * submitted all its partitions, or the futures never complete: {@link LogWriter} is the one caller, and always
     * does.
     */
    CompletableFuture<List<Verdict>> submit(UUID tenant, String queue, String partition, List<PushItem> items,
            List<byte[]> hashes, boolean patient, List<Runnable> flushes) {
        LaneKey key = new LaneKey(tenant, queue, partition);
        Submission owner = new Submission(items.size());
        List<Pending> ps = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            ps.add(new Pending(items.get(i), hashes.get(i), patient, owner, i));
        }
        Shard shard = shards[Math.floorMod(key.hashCode(), shards.length)];
        Runnable flush = shard.loop.executeAndTake(() -> shard.arrive(key, ps));
        if (flush != null) {
            flushes.add(flush);
        }
        return owner.done;
    }

    /**
     * Runs the flushes {@link #submit} collected: the first on the calling thread when it is a virtual thread
     * (a push request's, which would otherwise park until another thread ran it and then be woken), the others
     * on virtual threads of their own so that they proceed in parallel.
     */
    void run(List<Runnable> flushes) {
        boolean inline = Thread.currentThread().isVirtual();
        for (int i = inline ? 1 : 0; i < flushes.size(); i++) {
            io.execute(flushes.get(i));
        }
        if (inline && !flushes.isEmpty()) {
            flushes.get(0).run();
        }
    }

    private record LaneKey(UUID tenant, String queue, String partition) {
    }

    /** A 16-byte transaction hash as a map key (the bytes are a hash already: equal keys, equal hashes). */
    private record HashKey(long high, long low) {
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.BIG_ENDIAN);

        static HashKey of(byte[] hash) {
            return new HashKey((long) LONGS.get(hash, 0), (long) LONGS.get(hash, 8));
        }
    }

    /** The verdicts of one submitted lane; {@link #done} completes with them once the last one is set. */
    private static final class Submission {
        final Verdict[] verdicts;
        /** Verdicts still missing; the setter that takes it to zero completes {@link #done}. */
        final AtomicInteger missing;
        final CompletableFuture<List<Verdict>> done = new CompletableFuture<>();

        Submission(int items) {
            verdicts = new Verdict[items];
            missing = new AtomicInteger(items);
            if (items == 0) {
                done.complete(List.of());
            }
        }

        void set(int index, Verdict v) {
            verdicts[index] = v;
            if (missing.decrementAndGet() == 0) {
                done.complete(Collections.unmodifiableList(Arrays.asList(verdicts)));
            }
        }
    }

    /** A queued item; followers are later items of the same transaction id in the same accumulating segment. */
    private static final class Pending {
        final PushItem item;
        final byte[] hash;
        final HashKey hashKey;
        /** Its caller pipelines requests (see {@link #submit}). */
        final boolean patient;
        final Submission owner;
        final int index;
        /** Set by the first verdict; a later one is ignored, as a completed future ignores it. */
        private boolean answered;
        List<Pending> followers;

        Pending(PushItem item, byte[] hash, boolean patient, Submission owner, int index) {
            this.item = item;
            this.hash = hash;
            this.hashKey = HashKey.of(hash);
            this.patient = patient;
            this.owner = owner;
            this.index = index;
        }

        void complete(Verdict v) {
            if (answered) {
                return;
            }
            answered = true;
            owner.set(index, v);
            if (followers != null) {
                Verdict dup = v.status() == Status.FAILED ? v
                        : new Verdict(Status.DUPLICATE, v.messageId(), v.partitionId(), -1, null, false);
                for (Pending f : followers) {
                    f.complete(dup);
                }
            }
        }
    }

    private static final class Lane {
        final LaneKey key;
        /** Touched only by this lane's in-flight flush (one at a time). */
        final DedupIndex dedup = new DedupIndex();
        List<Pending> pending = new ArrayList<>();
        Map<HashKey, Pending> leaders = new HashMap<>();
        /** Whether {@link #pending} holds a closed-loop caller's items, which never wait for another commit. */
        boolean urgent;
        boolean inflight;
        boolean queued;
        long lastUsedNanos = System.nanoTime();

        Lane(LaneKey key) {
            this.key = key;
        }

        void add(Pending p) {
            urgent |= !p.patient;
            Pending leader = leaders.putIfAbsent(p.hashKey, p);
            if (leader == null) {
                pending.add(p);
            } else {
                if (leader.followers == null) {
                    leader.followers = new ArrayList<>(2);
                }
                leader.followers.add(p);
            }
        }
    }

    private final class Shard {
        final ShardLoop loop = new ShardLoop(io);
        final Map<LaneKey, Lane> lanes = new HashMap<>();
        final ArrayDeque<Lane> ready = new ArrayDeque<>();
        /** When this shard last swept its lanes (nanoTime). */
        long sweptAt = System.nanoTime();
        /** Lanes in {@link #ready} that are {@link Lane#urgent}. */
        int urgentReady;
        /** This shard's commits in flight, oldest first; at most {@code max-inflight-bundles}. */
        final ArrayDeque<CommitLoad.Commit> inflight = new ArrayDeque<>();

        /** Commits past the hold limit stop counting; work they held back may go (a task of the loop). */
        void expireOverdue() {
            boolean any = false;
            for (CommitLoad.Commit c : inflight) {
                if (c.overdue()) {
                    overdueCommits.increment();
                    any = true;
                }
            }
            if (any) {
                dispatch();
            }
        }

        /** Whether a bundle may start now (see {@link CommitLoad}). */
        private boolean mayStart() {
            if (inflight.size() >= maxInflight) {
                return false;
            }
            if (ready.size() >= bundleMax || urgentReady > 0 || !commitLoad.busy()) {
                return true;
            }
            for (CommitLoad.Commit c : inflight) {
                if (c.counts()) {
                    return false;  // busy: wait for it; the lanes ready now and those arriving meanwhile go together
                }
            }
            return true;
        }

        void arrive(LaneKey key, List<Pending> ps) {
            Lane lane = lanes.computeIfAbsent(key, Lane::new);
            lane.lastUsedNanos = System.nanoTime();
            boolean wasUrgent = lane.urgent;
            ps.forEach(lane::add);
            if (lane.queued && lane.urgent && !wasUrgent) {
                urgentReady++;
            }
            markReady(lane);
            dispatch();
        }

        /**
         * Drops lanes idle for {@link #LANE_IDLE_NANOS} with their dedup index and, {@code pressed} (indexes were
         * refused for lack of budget), the lanes not used since this shard's previous sweep (a task of its loop).
         */
        void sweep(boolean pressed) {
            long now = System.nanoTime();
            long previous = sweptAt;
            sweptAt = now;
            drop(lane -> now - lane.lastUsedNanos > LANE_IDLE_NANOS || pressed && lane.lastUsedNanos - previous < 0);
        }

        /** Drops every lane of the queue with nothing pending or in flight (a task of the shard's loop). */
        void sweep(UUID tenant, String queue) {
            drop(lane -> lane.key.tenant().equals(tenant) && lane.key.queue().equals(queue));
        }

        /** Drops the targeted lanes that have nothing pending or in flight, giving back their indexes' hashes. */
        private void drop(java.util.function.Predicate<Lane> target) {
            var it = lanes.values().iterator();
            while (it.hasNext()) {
                Lane lane = it.next();
                if (!lane.inflight && !lane.queued && lane.pending.isEmpty() && target.test(lane)) {
                    int size = lane.dedup.size();
                    lane.dedup.reset();
                    cachedHashes.addAndGet(-size);
                    it.remove();
                }
            }
        }

        void markReady(Lane lane) {
            if (!lane.inflight && !lane.queued && !lane.pending.isEmpty()) {
                lane.queued = true;
                ready.add(lane);
                readyLanes.incrementAndGet();
                if (lane.urgent) {
                    urgentReady++;
                }
            }
        }

        void dispatch() {
            while (!ready.isEmpty() && mayStart()) {
                List<Lane> bundle = new ArrayList<>(Math.min(bundleMax, ready.size()));
                List<List<Pending>> frames = new ArrayList<>(bundle.size());
                while (bundle.size() < bundleMax && !ready.isEmpty()) {
                    Lane lane = ready.poll();
                    readyLanes.decrementAndGet();
                    lane.queued = false;
                    if (lane.urgent) {
                        lane.urgent = false;
                        urgentReady--;
                    }
                    lane.inflight = true;
                    bundle.add(lane);
                    frames.add(lane.pending);
                    lane.pending = new ArrayList<>();
                    lane.leaders = new HashMap<>();
                }
                CommitLoad.Commit commit = commitLoad.start();
                inflight.add(commit);
                loop.defer(() -> flush(this, bundle, frames, commit));
            }
        }

        void finish(List<Lane> bundle, List<List<Pending>> frames, PushStore.SegmentResult[] results,
                Map<Integer, Map<Integer, UUID>> originals, Throwable error, CommitLoad.Commit commit) {
            commit.end();
            inflight.remove(commit);
            for (int i = 0; i < bundle.size(); i++) {
                Lane lane = bundle.get(i);
                List<Pending> seg = frames.get(i);
                lane.inflight = false;
                lane.lastUsedNanos = System.nanoTime();
                if (error != null) {
                    Verdict failed = Verdict.failed(error);
                    seg.forEach(p -> p.complete(failed));
                } else {
                    PushStore.SegmentResult r = results[i];
                    if (!r.duplicate()) {
                        for (int k = 0; k < seg.size(); k++) {
                            Pending p = seg.get(k);
                            p.complete(new Verdict(Status.QUEUED, p.item.messageId(), r.partitionId(),
                                    r.baseOffset() + k, null, false));
                        }
                    } else {
                        requeueSurvivors(lane, seg, r, originals.get(i));
                    }
                }
                markReady(lane);
            }
            dispatch();
        }

        /** A lane whose segment could not be built: its items fail, the lane takes the next ones. */
        void fail(Lane lane, List<Pending> seg, Throwable error) {
            lane.inflight = false;
            lane.lastUsedNanos = System.nanoTime();
            Verdict failed = Verdict.failed(error);
            seg.forEach(p -> p.complete(failed));
            markReady(lane);
        }

        /** Duplicates are answered; the survivors go back to the FRONT of the lane, ahead of newer arrivals. */
        private void requeueSurvivors(Lane lane, List<Pending> seg, PushStore.SegmentResult r,
                Map<Integer, UUID> originalIds) {
            Map<Integer, Long> dupOffset = new HashMap<>();
            for (int j = 0; j < r.dupIndexes().length; j++) {
                dupOffset.put(r.dupIndexes()[j], r.dupOffsets()[j]);
            }
            List<Pending> newer = lane.pending;
            lane.pending = new ArrayList<>(seg.size() + newer.size());
            lane.leaders = new HashMap<>();
            lane.urgent = false;  // not queued while its flush was in flight; add() sets it again for what is kept
            for (int k = 0; k < seg.size(); k++) {
                Pending p = seg.get(k);
                if (dupOffset.containsKey(k)) {
                    duplicates.increment();
                    p.complete(originalIds == null
                            ? Verdict.failed("duplicate of offset " + dupOffset.get(k) + ", original not readable")
                            : new Verdict(Status.DUPLICATE, originalIds.get(k), r.partitionId(), -1, null, false));
                } else {
                    lane.add(p);
                }
            }
            for (Pending p : newer) {
                lane.add(p);
            }
        }
    }

    /** Runs on a virtual thread: build and compress the segments, commit the bundle, resolve duplicates. */
    private void flush(Shard shard, List<Lane> fused, List<List<Pending>> fusedFrames, CommitLoad.Commit commit) {
        PushStore.SegmentResult[] results = null;
        Map<Integer, Map<Integer, UUID>> originals = new HashMap<>();
        Throwable error = null;
        List<Lane> bundle = new ArrayList<>(fused.size());
        List<List<Pending>> frames = new ArrayList<>(fused.size());
        try {
            List<PushStore.SegmentWrite> writes = new ArrayList<>(fused.size());
            for (int i = 0; i < fused.size(); i++) {
                // a segment that cannot be built fails its own partition's pushes, not the bundle's others
                PushStore.SegmentWrite w;
                try {
                    w = buildSegment(fused.get(i), fusedFrames.get(i));
                } catch (RuntimeException | OutOfMemoryError e) {
                    Lane lane = fused.get(i);
                    List<Pending> seg = fusedFrames.get(i);
                    shard.loop.execute(() -> shard.fail(lane, seg, e));
                    continue;
                }
                writes.add(w);
                bundle.add(fused.get(i));
                frames.add(fusedFrames.get(i));
            }
            results = writes.isEmpty() ? new PushStore.SegmentResult[0] : store.pushBundle(writes);
            // committed: from here on nothing may turn these verdicts into failures
            for (int i = 0; i < results.length; i++) {
                if (!results[i].duplicate()) {
                    DedupIndex idx = bundle.get(i).dedup;
                    try {
                        remember(idx, results[i], writes.get(i).hashes(), frames.get(i));
                    } catch (Exception e) {
                        LOG.warnf("dedup index of %s dropped: %s", bundle.get(i).key, e.getMessage());
                        int size = idx.size();
                        idx.reset();
                        cachedHashes.addAndGet(-size);
                    }
                }
            }
            List<Committed> committed = new ArrayList<>();
            int msgs = 0;
            for (int i = 0; i < results.length; i++) {
                PushStore.SegmentResult r = results[i];
                if (r.duplicate()) {
                    try {
                        originals.put(i, resolveOriginals(r));
                    } catch (Exception e) {
                        LOG.warnf("cannot resolve the original of a duplicate in %s: %s", bundle.get(i).key,
                                e.getMessage());
                        originals.put(i, null);  // those items are answered failed; a retry resolves them
                    }
                } else {
                    int n = frames.get(i).size();
                    msgs += n;
                    segments.increment();
                    segmentSize.record(n);
                    LaneKey k = bundle.get(i).key;
                    committed.add(new Committed(k.tenant(), k.queue(), k.partition(), r.partitionId(),
                            r.baseOffset() + n - 1));
                }
            }
            if (results.length > 0) {
                commits.increment();
            }
            messages.increment(msgs);
            if (!committed.isEmpty()) {
                for (CommitListener l : listeners) {
                    try {
                        l.committed(committed);
                    } catch (RuntimeException e) {
                        LOG.warn("commit listener failed", e);
                    }
                }
            }
        } catch (Throwable t) {
            error = t;
            if (!(t instanceof SQLException)) {
                LOG.error("push bundle failed", t);
            } else {
                LOG.warnf("push bundle of %d segments failed: %s", bundle.size(), t.getMessage());
            }
        }
        PushStore.SegmentResult[] res = results;
        Throwable err = error;
        shard.loop.execute(() -> shard.finish(bundle, frames, res, originals, err, commit));
    }

    /**
     * Extends a partition's dedup index with a committed segment, first loading from the sidecar whatever the
     * index does not cover yet (cold start, or segments another broker wrote in between). Over the global
     * budget the index is dropped and that partition's pushes probe the whole window in SQL.
     */
    private void remember(DedupIndex idx, PushStore.SegmentResult r, byte[] hashes, List<Pending> seg)
            throws SQLException {
        int window = r.dedupWindow();
        int before = idx.size();
        long base = r.baseOffset();
        if (window <= 0) {
            idx.reset();
        } else {
            if (!idx.valid() || idx.windowSeconds() != window || !r.partitionId().equals(idx.partitionId())
                    || base != idx.verified() + 1) {
                // cover what lies between the index and this segment: the gap another broker wrote, or, for a
                // cold (or reset) index, everything inside the window below this segment
                boolean cold = !idx.valid() || idx.windowSeconds() != window
                        || !r.partitionId().equals(idx.partitionId());
                if (cold) {
                    idx.reset();
                    if (cachedHashes.get() >= dedupBudget || idx.refusedInRound == sweepRounds.get()) {
                        // the budget is spent, or was for this index in this sweep round: rebuilding would read
                        // the whole window from the sidecar only to be dropped again at the end of this method, on
                        // every push; stay cold (SQL probes the whole window, the documented fallback) until a
                        // sweep round has freed room
                        budgetSpent(idx, r, cachedHashes.addAndGet(-before) + before);
                        return;
                    }
                    rebuilds.increment();
                }
                List<PushStore.TxnSpan> gap = store.txnSpans(r.partitionId(), cold ? -1 : idx.verified(), base, window);
                if (cold) {
                    idx.startAt(r.partitionId(), gap.isEmpty() ? base - 1 : gap.get(0).baseOffset() - 1, window);
                }
                for (PushStore.TxnSpan t : gap) {
                    if (!idx.append(t.baseOffset(), t.endOffset(), t.createdAt().toInstant().toEpochMilli(),
                            t.hashes(), window)) {
                        break;
                    }
                }
            }
            if (idx.valid() && idx.verified() == base - 1 && seg.size() == hashes.length / 16) {
                idx.append(base, base + hashes.length / 16 - 1, r.createdAt().toInstant().toEpochMilli(), hashes,
                        kafkaTxns(seg), window);
            } else {
                idx.reset();
            }
        }
        long total = cachedHashes.addAndGet(idx.size() - before);
        if (total > dedupBudget) {
            int size = idx.size();
            idx.reset();
            cachedHashes.addAndGet(-size);
            budgetSpent(idx, r, total);
        }
    }

    /** Created at start (not on the first push) so the budget is in the log and the meters exist from the start. */
    void start(@Observes StartupEvent event) {
        LOG.infof("dedup index budget: %,d hashes (%s; %d B of heap each at most)", dedupBudget, budgetConfigured
                ? "QUEEN_DEDUP_CACHE_ENTRIES" : String.format("default %,d, capped to a quarter of the %,d MB heap",
                        DEFAULT_DEDUP_ENTRIES, Runtime.getRuntime().maxMemory() >> 20), DEDUP_BYTES_PER_ENTRY);
    }

    /**
     * Counts a partition pushed without an index for lack of budget and tells the operator, at most once a
     * minute: its pushes now cost PostgreSQL a scan of the whole dedup window each (tens of ms at high rates).
     */
    private void budgetSpent(DedupIndex idx, PushStore.SegmentResult r, long held) {
        idx.refusedInRound = sweepRounds.get();
        refusals.incrementAndGet();
        budgetExhausted.increment();
        long now = System.nanoTime();
        long last = budgetWarnedAt.get();
        if (now - last >= TimeUnit.MINUTES.toNanos(1) && budgetWarnedAt.compareAndSet(last, now)) {
            LOG.warnf("dedup index budget spent (QUEEN_DEDUP_CACHE_ENTRIES=%d, %d hashes held): pushes to partition"
                    + " %s and others like it probe their whole %d s dedup window in SQL; raise the budget or"
                    + " shorten the queue's dedupWindowSeconds (counter queen_push_dedup_budget_exhausted_total)",
                    dedupBudget, held, r.partitionId(), r.dedupWindow());
        }
    }

    private PushStore.SegmentWrite buildSegment(Lane lane, List<Pending> seg) {
        LaneKey key = lane.key;
        List<PushItem> items = new ArrayList<>(seg.size());
        List<byte[]> hashes = new ArrayList<>(seg.size());
        for (Pending p : seg) {
            items.add(p.item);
            hashes.add(p.hash);
        }
        SegmentPacker.Packed packed = SegmentPacker.pack(items, hashes, zstdLevel);
        // ids are needed only to look Kafka-form ones up in ranges the index holds
        long verified = lane.dedup.vouchFor(packed.hashes(), lane.dedup.ranges() > 0 ? txns(seg) : null);
        (verified >= 0 || lane.dedup.valid() ? vouched : fullProbes).increment();
        return PushStore.SegmentWrite.vouched(key.tenant(), key.queue(), key.partition(), packed.count(),
                packed.hashes(), verified, lane.dedup.windowSeconds(), lane.dedup.partitionId(), packed.blob());
    }

    /**
     * The UTF-8 transaction ids of a segment's frames in frame order, for a segment holding Kafka records (whose ids
     * the index may keep as sequence ranges); null for any other, whose ids the index keeps as fingerprints.
     */
    private static byte[][] kafkaTxns(List<Pending> seg) {
        boolean kafka = false;
        for (int k = 0; k < seg.size() && !kafka; k++) {
            kafka = seg.get(k).item.kafkaRecord();
        }
        return kafka ? txns(seg) : null;
    }

    /** The UTF-8 transaction ids of a segment's frames, in frame order. */
    private static byte[][] txns(List<Pending> seg) {
        byte[][] out = new byte[seg.size()][];
        for (int k = 0; k < out.length; k++) {
            out[k] = seg.get(k).item.transactionIdUtf8();
        }
        return out;
    }

    /** Original message id of each duplicate frame, read from the segment that holds the first occurrence. */
    private Map<Integer, UUID> resolveOriginals(PushStore.SegmentResult r) throws SQLException {
        Map<Integer, UUID> out = new HashMap<>();
        PushStore.StoredSegment cached = null;
        List<Frame> cachedFrames = null;
        for (int j = 0; j < r.dupIndexes().length; j++) {
            long off = r.dupOffsets()[j];
            if (cached == null || off < cached.baseOffset() || off > cached.endOffset()) {
                cached = store.segmentAt(r.partitionId(), off);
                cachedFrames = cached == null || off > cached.endOffset() ? null : SegmentCodec.decode(cached.blob());
            }
            UUID id = cachedFrames == null ? new UUID(0, 0) : cachedFrames.get((int) (off - cached.baseOffset())).messageId();
            out.put(r.dupIndexes()[j], id);
        }
        return out;
    }
}
