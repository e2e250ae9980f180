package io.queen.pop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.api.ErrorMappers;
import io.queen.config.QueenConfig;
import io.queen.crypto.PayloadCipher;
import io.queen.lease.AckRegistry;
import io.queen.lease.LeaseDirectory;
import io.queen.metrics.OpsMeter;
import io.queen.queue.QueueFlags;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import io.queen.shutdown.DrainState;
import io.queen.wakeup.PopWaiters;
import io.queen.wakeup.WakeSignal;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Pinned, wildcard and namespace/task pops, with long polling. A pop that finds nothing and may wait parks on
 * {@link PopWaiters} holding no database connection and doing no database work, and tries again when it is woken
 * (its queue written on this broker or another, an ack or release ending a lease, a seek), when a lease it could
 * take over expires or a delay matures (asked once per park, {@link #nextDue}), or after the long safety interval
 * ({@code queen.pop.recheck-interval-ms}, for a lost notification), until data or the timeout. Transient database trouble is absorbed (a consume loop dies on a 5xx): the pop retries until its
 * deadline and then answers "nothing". Once the broker drains for a stop ({@link DrainState}) a pop claims
 * nothing more and a parked one answers "nothing" at once: every lease this broker grants is one it can still
 * give back before it exits. Thread-safe; called on virtual threads.
 */
@Singleton
public class PopService {
    private static final Logger LOG = Logger.getLogger(PopService.class);
    /** Slack for the 1 s quantization of last_write_at and clock skew between brokers. */
    private static final Duration FLOOR_SLACK = Duration.ofMinutes(2);
    /** A wildcard scan floor is trusted this long; then one full scan (covers seeks made on other brokers). */
    private static final Duration FLOOR_TTL = Duration.ofSeconds(30);
    /** Targeted claims a queue-level pop tries on recently written partitions before the discovery scan. */
    private static final int HOT_TRIES = 2;
    /** A held pop (minPopWaitTime) measures its queue's fill at most this often, however often it is written. */
    private static final long HOLD_PROBE_MS = 10;
    /** A parked pop looks whether its client is still there this often (no database work). */
    private static final long CLIENT_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A due time already past is retried no sooner than this (the claim that just missed it may be racing). */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Remembered due times; the map is emptied when it reaches this size. */
    private static final int MAX_DUES = 4096;

    /** {@link #attempt}'s answer to a pop that may sleep on without a claim. */
    private static final Result SLEEP_ON = new Result(new byte[0], 0, "", "", "", 0, List.of());

    /**
     * What a pop delivered (null for "nothing"): the JSON body, the message count, and the queue, group and lease id
     * it was served under (lease id "" with autoAck); {@code claimed}: the messages the claim leased, of which the
     * answer carries {@code messages}; {@code partitions}: the names of the partitions claimed.
     */
    public record Result(byte[] body, int messages, String queue, String group, String leaseId, int claimed,
            List<String> partitions) {
    }

    private record Floor(Instant floor, Instant setAt) {
    }

    /** What a parked pop waits on besides wake-ups: the pops of one key share it (see {@link #nextDue}). */
    private record DueKey(UUID tenant, String queue, String partition, String namespace, String task, String group) {
    }

    /**
     * When to re-try without a wake-up (a nanoTime, {@link Long#MAX_VALUE} = never), valid while the signal's
     * generation is still {@code generation}; {@code at} completes when the one query asking it has answered.
     */
    private record Due(long generation, CompletableFuture<Long> at) {
    }

    /** A wildcard scan floor belongs to one (tenant, queue, group): tenants may share queue and group names. */
    private record FloorKey(UUID tenant, String queue, String group) {
    }

    private final PopStore store;
    private final PayloadCipher cipher;
    private final PopWaiters waiters;
    private final LeaseDirectory leases;
    private final AckRegistry ackRegistry;
    private final HotPartitions hot;
    private final Counter hotClaims;
    private final Counter resleeps;
    private final Counter knownEmptyPops;
    private final QueenConfig config;
    private final ConcurrentHashMap<FloorKey, Floor> floors = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<DueKey, Due> dues = new ConcurrentHashMap<>();
    private final AtomicInteger parked = new AtomicInteger();
    private final Counter delivered;
    private final QueueFlags flags;
    private final Counter holds;
    private final OpsMeter meter;
    private final DrainState drain;

    PopService(PopStore store, PopWaiters waiters, LeaseDirectory leases, AckRegistry ackRegistry, HotPartitions hot,
            PayloadCipher cipher, QueenConfig config, MeterRegistry registry, QueueFlags flags, OpsMeter meter,
            DrainState drain) {
        this.drain = drain;
        this.flags = flags;
        this.meter = meter;
        this.holds = Counter.builder("queen.pop.holds")
                .description("pops that held an under-full batch for the queue's minPopWaitTime").register(registry);
        this.ackRegistry = ackRegistry;
        this.hot = hot;
        this.resleeps = Counter.builder("queen.pop.resleeps")
                .description("parked pops that a commit woke and that slept on without a claim (its work was taken)")
                .register(registry);
        this.knownEmptyPops = Counter.builder("queen.pop.known.empty")
                .description("pop attempts not made: a pop of the same key found nothing since the last wake-up")
                .register(registry);
        this.hotClaims = Counter.builder("queen.pop.hot.claims")
                .description("queue-level pops served by a targeted claim on a recently written partition")
                .register(registry);
        this.store = store;
        this.cipher = cipher;
        this.waiters = waiters;
        this.leases = leases;
        this.config = config;
        Gauge.builder("queen.pop.parked", parked, Number::doubleValue).strongReference(true)
                .description("pops of this broker waiting for messages right now").register(registry);
        this.delivered = Counter.builder("queen.pop.messages").description("messages delivered by pops")
                .register(registry);
    }

    public Result pop(UUID tenant, PopRequest r, BooleanSupplier clientGone) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(r.longPoll() ? r.timeoutMs() : 0);
        WakeSignal signal = r.queue() != null ? waiters.queue(tenant, r.queue()) : waiters.tenant(tenant);
        long safety = TimeUnit.MILLISECONDS.toNanos(Math.max(10, config.pop().recheckIntervalMs()));
        boolean counted = false;
        OpsMeter.QueueMeter qm = meter.queue(tenant, r.queue());
        boolean served = false;
        boolean woken = false;
        long othersSeen = 0;
        long holdNanos = TimeUnit.MILLISECONDS.toNanos(holdMs(tenant, r));
        long holdUntil = 0;
        try {
            while (true) {
                if (drain.draining()) {
                    return null;
                }
                long seen = signal.generation();
                long others = signal.others();
                // woken only by this broker's fused commits since the last attempt (see HotPartitions#handedOut)
                boolean fusedOnly = woken && others == othersSeen;
                othersSeen = others;
                woken = false;
                // when to try again without a wake-up: a lease expiring or a delay maturing (nothing pending: never)
                long dueAt = Long.MAX_VALUE;
                try {
                    // minPopWaitTime: an under-full, non-empty batch waits (up to the hold, within the pop's
                    // timeout) for more, holding no connection; commits to the queue wake it to measure again
                    long now = System.nanoTime();
                    if (holdNanos > 0 && (holdUntil == 0 || now < holdUntil)) {
                        long fill = store.fill(tenant, r.queue(), r.partition(), r.group());
                        if (fill > 0 && fill < r.batch()) {
                            if (holdUntil == 0) {
                                holdUntil = Math.min(now + holdNanos, deadline);
                                holds.increment();
                            }
                            if (now < holdUntil) {
                                if (clientGone.getAsBoolean()) {
                                    return null;  // claiming now would lease messages nobody receives
                                }
                                awaitFill(signal, seen, holdUntil);
                                continue;
                            }
                        }
                    }
                    Result res = knownEmpty(tenant, r, seen) ? null : attempt(tenant, r, fusedOnly);
                    if (res != null && res != SLEEP_ON) {
                        delivered.increment(res.messages());
                        served = true;
                        return res;
                    }
                    if (deadline - System.nanoTime() > 0) {
                        // also after sleeping on: the pop that took the commit's work may hold it under a lease
                        // that expires (one answer per generation for all the pops of this key)
                        dueAt = nextDue(tenant, r, seen);
                    }
                } catch (SQLException e) {
                    qm.increment(OpsMeter.DB_ERRORS);
                    if (ErrorMappers.isUnavailable(e)) {
                        LOG.warnf("pop: database unavailable (%s); answering nothing", e.getMessage());
                    } else {
                        LOG.error("pop failed", e);
                    }
                    seen = -1;  // do not wait for a wake-up; just back off below
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || clientGone.getAsBoolean() || drain.draining()) {
                    return null;
                }
                if (!counted) {
                    parked.incrementAndGet();
                    qm.parked();
                    counted = true;
                }
                if (seen == -1) {
                    Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(remaining) + 1, 200));
                    if (System.nanoTime() - deadline >= 0) {
                        return null;  // the database was failing: no further attempt past the deadline
                    }
                    continue;
                }
                long until = Math.min(deadline, Math.min(dueAt, System.nanoTime() + safety));
                boolean moved = park(signal, seen, until, clientGone);
                woken = moved;
                if (clientGone.getAsBoolean() || drain.draining()) {
                    return null;
                }
                if (!moved && System.nanoTime() - deadline >= 0) {
                    // the timeout ran out with no commit signalled: answer now instead of one more claim, which
                    // under load (pool wait, slow statements) could run the answer well past the timeout
                    return null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (counted) {
                parked.decrementAndGet();
                qm.unparked();
            }
            if (!served) {
                // a delivering pop is counted by deliver(), under the queue that delivered
                qm.increment(OpsMeter.POP_REQUESTS);
                qm.increment(OpsMeter.POP_EMPTY);
            }
        }
    }

    /**
     * Waits for a wake-up (true) or until {@code until} (false), looking at the client every
     * {@link #CLIENT_CHECK_NANOS}: a client that left ends the wait without any database work.
     */
    private static boolean park(WakeSignal signal, long seen, long until, BooleanSupplier clientGone)
            throws InterruptedException {
        while (true) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (signal.awaitChange(seen, Math.min(left, CLIENT_CHECK_NANOS))) {
                return true;
            }
            if (clientGone.getAsBoolean()) {
                return false;
            }
        }
    }

    /**
     * The nanoTime at which a pop that found nothing should try again on its own ({@link Long#MAX_VALUE}: only a
     * wake-up can help it). Parked pops of one (queue, partition, group) share one answer per signal generation: a
     * write, an ack ending a lease or a seek moves the generation, and nothing else makes work claimable sooner
     * than the answer says, so a push waking many parked pops costs one such query, not one each.
     */
    private long nextDue(UUID tenant, PopRequest r, long seen)
            throws SQLException, InterruptedException {
        DueKey key = dueKey(tenant, r);
        for (int look = 0; ; look++) {
            Due d = dues.get(key);
            if (d != null && d.generation() == seen) {
                // the pops a write woke all ask at once: one asks, the others wait for its answer
                Long at = answer(d);
                if (at != null && at - System.nanoTime() > 0) {
                    return at;
                }
            }
            Due mine = new Due(seen, new CompletableFuture<>());
            boolean published = d == null ? dues.putIfAbsent(key, mine) == null : dues.replace(key, d, mine);
            if (!published && look < 2) {
                continue;  // another pop started asking meanwhile: wait for its answer instead
            }
            if (dues.size() >= MAX_DUES) {
                dues.clear();   // bounded: a forgotten answer only costs one more query
                dues.put(key, mine);
            }
            try {
                double ms = store.nextDueMs(tenant, r.queue(), r.partition(), r.namespace(), r.task(), r.group());
                long at = ms < 0 ? Long.MAX_VALUE
                        : System.nanoTime() + Math.max(MIN_RETRY_NANOS, (long) (ms * 1_000_000d));
                mine.at().complete(at);
                return at;
            } catch (SQLException | RuntimeException e) {
                mine.at().completeExceptionally(e);
                dues.remove(key, mine);
                throw e;
            }
        }
    }

    private static DueKey dueKey(UUID tenant, PopRequest r) {
        return new DueKey(tenant, r.queue(), r.partition(), r.namespace(), r.task(), r.group());
    }

    /** The answer of a due query, waiting for it if it is still running; null when it failed. */
    private static Long answer(Due d) throws InterruptedException {
        try {
            return d.at().get();
        } catch (ExecutionException e) {
            return null;
        }
    }

    /**
     * True when a claim is known to find nothing: a pop of the same key found nothing in this very signal
     * generation and its due time is still ahead. Nothing makes work claimable without moving the generation
     * before that time (see {@link #nextDue}), so a pop arriving then (a consumer back from acking what it got)
     * parks without a query. Not for a pop that may create its group's cursors at a position of its own.
     */
    private boolean knownEmpty(UUID tenant, PopRequest r, long seen) {
        if (r.subscriptionFrom() != null || !"all".equals(r.subscriptionMode())) {
            return false;
        }
        Due d = dues.get(dueKey(tenant, r));
        if (d == null || d.generation() != seen || !d.at().isDone() || d.at().isCompletedExceptionally()) {
            return false;
        }
        if (d.at().join() - System.nanoTime() > 0) {
            knownEmptyPops.increment();
            return true;
        }
        return false;
    }

    /** Waits for a commit to the queue or the hold's end; a busy queue is measured at most every HOLD_PROBE_MS. */
    private static void awaitFill(WakeSignal signal, long seen, long holdUntil) throws InterruptedException {
        if (signal.awaitChange(seen, holdUntil - System.nanoTime())) {
            long left = holdUntil - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(HOLD_PROBE_MS)));
            }
        }
    }

    /** The queue's minPopWaitTime when it applies: a named queue, a long poll, a batch of more than one. */
    private int holdMs(UUID tenant, PopRequest r) {
        if (!r.longPoll() || r.batch() <= 1 || r.queue() == null) {
            return 0;
        }
        try {
            return flags.minPopWaitMs(tenant, r.queue());
        } catch (SQLException e) {
            return 0;  // the claim below meets the same trouble and answers for it
        }
    }

    /**
     * A pop's claim. {@code fusedOnly}: the pop was woken, and only by this broker's fused commits since its last
     * attempt; then a queue-level pop claims from the hot list only, and answers {@link #SLEEP_ON} without any
     * SQL when the group's list is handed out ({@link HotPartitions#handedOut}): the commits that woke it went to
     * other pops. Otherwise null = nothing claimable.
     */
    private Result attempt(UUID tenant, PopRequest r, boolean fusedOnly) throws SQLException {
        String leaseId = r.autoAck() ? "" : UUID.randomUUID().toString();
        PopStore.Claim claim = new PopStore.Claim(r.group(), r.batch(), leaseId, r.autoAck(), r.subscriptionMode(),
                r.subscriptionFrom());
        if (r.partition() != null) {
            return deliver(tenant, r.queue(), r.group(), leaseId,
                    store.popPartition(tenant, r.queue(), r.partition(), claim));
        }
        if (r.queue() != null) {
            return popQueue(tenant, r.queue(), r, claim, leaseId, fusedOnly);
        }
        for (String queue : store.queuesByNamespace(tenant, r.namespace(), r.task())) {
            Result res = popQueue(tenant, queue, r, claim, leaseId, false);
            if (res != null) {
                return res;
            }
        }
        return null;
    }

    private Result popQueue(UUID tenant, String queue, PopRequest r, PopStore.Claim claim, String leaseId,
            boolean fusedOnly) throws SQLException {
        boolean hotFirst = r.partitions() == 1 && (fusedOnly || !hot.scanTurn(tenant, queue, r.group()));
        if (hotFirst) {
            // targeted claims on partitions this broker just wrote, before ranking the whole queue
            for (int i = 0; i < HOT_TRIES; i++) {
                String partition = hot.take(tenant, queue, r.group());
                if (partition == null) {
                    break;
                }
                Result res = deliver(tenant, queue, r.group(), leaseId,
                        store.popPartition(tenant, queue, partition, claim));
                if (res != null) {
                    hotClaims.increment();
                    return reofferLeftover(tenant, queue, r, res);
                }
            }
            if (fusedOnly && hot.handedOut(tenant, queue, r.group())) {
                resleeps.increment();
                return SLEEP_ON;
            }
        }
        FloorKey key = new FloorKey(tenant, queue, r.group());
        Instant started = Instant.now();
        Floor f = floors.get(key);
        Instant floor = f == null || f.setAt().plus(FLOOR_TTL).isBefore(started) ? Instant.EPOCH
                : f.floor().minus(FLOOR_SLACK);
        Result res = deliver(tenant, queue, r.group(), leaseId,
                store.popQueue(tenant, queue, claim, r.partitions(), floor));
        if (res == null) {
            hot.settled(tenant, queue, r.group());
        } else {
            reofferLeftover(tenant, queue, r, res);
        }
        if (res == null && floor.equals(Instant.EPOCH)) {
            // a full scan found nothing claimable; if nothing is pending at all, later scans need only look at
            // partitions written from now on (a range scan of idx_log_partitions_queue_write)
            if (!store.hasPending(tenant, queue, r.group())) {
                floors.put(key, new Floor(started, started));
            }
        } else if (res != null && f != null && floor.equals(Instant.EPOCH)) {
            floors.remove(key);
        }
        return res;
    }

    /**
     * A claim that may have left claimable work in its partition (an auto-ack pop that filled its batch, an answer
     * cut short by the byte budget) hands the partition back to the group's hot list and wakes the parked pops, so
     * one of them claims the rest (a pop woken by fused commits alone claims from that list only). A full batch
     * under a lease needs nothing: its ack ends the lease, which wakes every parked pop.
     */
    private Result reofferLeftover(UUID tenant, String queue, PopRequest r, Result res) {
        if ((r.autoAck() && res.messages() >= r.batch()) || res.messages() < res.claimed()) {
            for (String partition : res.partitions()) {
                hot.reoffer(tenant, queue, r.group(), partition);
            }
            waiters.hotListed(tenant, queue);
        }
        return res;
    }

    /**
     * A seek, a group delete or a subscription change moved a group's cursors (possibly backwards): forget its
     * wildcard scan floors, and wake parked pops here and on other brokers, which do not re-query on a timer.
     */
    public void cursorsMoved(String group) {
        floors.keySet().removeIf(k -> k.group().equals(group));
        waiters.freedEverywhere();
    }

    /** Encrypted payloads (frame flag 4) are decrypted: clients only ever see what the producer sent. */
    private List<Frame> plaintext(List<Frame> frames) {
        List<Frame> out = null;
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            if (f.encrypted()) {
                if (out == null) {
                    out = new ArrayList<>(frames);
                }
                out.set(i, new Frame(f.messageId(), f.traceId(), f.transactionId(), f.producerSub(), false,
                        cipher.plaintext(f)));
            }
        }
        return out == null ? frames : out;
    }

    private Result deliver(UUID tenant, String queue, String group, String leaseId,
            List<PopStore.ClaimedSegment> claimed) {
        if (claimed.isEmpty()) {
            return null;
        }
        List<PopResponseWriter.Delivered> out = withinBudget(group, leaseId, claimed);
        OpsMeter.QueueMeter qm = meter.queue(tenant, queue);
        qm.increment(OpsMeter.POP_REQUESTS);
        long nowMs = System.currentTimeMillis();
        Set<UUID> partitions = new LinkedHashSet<>();
        boolean remember = !leaseId.isEmpty() && ackRegistry.enabled();
        UUID current = null;
        AckRegistry.Digest digest = null;
        int n = 0;
        for (int k = 0; k < out.size(); k++) {
            PopStore.ClaimedSegment s = out.get(k).segment();
            List<Frame> frames = out.get(k).frames();
            partitions.add(s.partitionId());
            n += frames.size();
            // lag: now - createdAt, the same for every frame of a segment
            qm.delivered(frames.size(), s.createdAt() == null ? 0
                    : nowMs - (s.createdAt().toEpochSecond() * 1000 + s.createdAt().getNano() / 1_000_000));
            if (remember) {
                // segments of one partition arrive together, in offset order; the lease covers up to the last one
                if (!s.partitionId().equals(current)) {
                    current = s.partitionId();
                    digest = new AckRegistry.Digest();
                }
                for (Frame f : frames) {
                    digest.add(TransactionHash.of(f.transactionId()));
                }
                boolean lastOfPartition = k + 1 == out.size()
                        || !out.get(k + 1).segment().partitionId().equals(current);
                if (lastOfPartition) {
                    ackRegistry.delivered(leaseId, current, new AckRegistry.Batch(tenant, group, queue,
                            s.partitionName(),
                            s.baseOffset() + s.startIdx() + s.take() - 1, digest.count(), digest.hi(), digest.lo()));
                }
            }
        }
        if (!leaseId.isEmpty()) {
            leases.granted(leaseId, new ArrayList<>(partitions));
        }
        int claimedCount = 0;
        List<String> names = new ArrayList<>(1);
        for (PopStore.ClaimedSegment s : claimed) {
            claimedCount += s.take();
            if (!names.contains(s.partitionName())) {
                names.add(s.partitionName());
            }
        }
        return new Result(PopResponseWriter.write(queue, group, leaseId, out, partitions.size()), n, queue, group,
                leaseId, claimedCount, names);
    }

    /**
     * The claimed segments' frames, decoded, up to the answer's byte budget ({@code queen.pop.max-response-bytes}):
     * the first message always, then messages while the next one fits. The tail of a claim that does not fit is
     * given back (the lease, or the autoAck cursor, ends at the last message delivered), so it stays available to
     * the next pop; a partition whose give-back finds the claim changed meanwhile is delivered whole instead. Under
     * the budget (every usual pop) this is the plain decode loop: no extra call, no extra copy.
     */
    private List<PopResponseWriter.Delivered> withinBudget(String group, String worker,
            List<PopStore.ClaimedSegment> claimed) {
        long budget = config.pop().maxResponseBytes().asLongValue();
        List<PopResponseWriter.Delivered> out = new ArrayList<>(claimed.size());
        long bytes = 0;
        int cutAt = -1;  // index of the first segment not delivered whole
        int keepOfCut = 0;
        for (int k = 0; k < claimed.size() && cutAt < 0; k++) {
            PopStore.ClaimedSegment s = claimed.get(k);
            List<Frame> frames = plaintext(SegmentCodec.decode(s.blob(), s.startIdx(), s.take()));
            for (int i = 0; i < frames.size(); i++) {
                long size = PopResponseWriter.bytes(frames.get(i));
                if (bytes > 0 && bytes + size > budget) {
                    cutAt = k;
                    keepOfCut = i;
                    break;
                }
                bytes += size;
            }
            if (cutAt < 0) {
                out.add(new PopResponseWriter.Delivered(s, frames));
            } else if (keepOfCut > 0) {
                out.add(new PopResponseWriter.Delivered(new PopStore.ClaimedSegment(s.partitionId(), s.partitionName(),
                        s.baseOffset(), s.startIdx(), keepOfCut, s.createdAt(), s.blob()), frames.subList(0, keepOfCut)));
            }
        }
        if (cutAt < 0) {
            return out;
        }
        // give back, per partition, what the cut leaves undelivered: from the cut to the partition's last segment
        List<UUID> kept = new ArrayList<>();
        for (int k = cutAt; k < claimed.size(); ) {
            PopStore.ClaimedSegment first = claimed.get(k);
            int end = k;
            int returned = 0;
            while (end < claimed.size() && claimed.get(end).partitionId().equals(first.partitionId())) {
                returned += claimed.get(end).take();
                end++;
            }
            PopStore.ClaimedSegment last = claimed.get(end - 1);
            long claimedLast = last.baseOffset() + last.startIdx() + last.take() - 1;
            int keep = k == cutAt ? keepOfCut : 0;
            long keepLast = first.baseOffset() + first.startIdx() + keep - 1;
            if (k == cutAt && keep == 0 && k > 0 && claimed.get(k - 1).partitionId().equals(first.partitionId())) {
                PopStore.ClaimedSegment prev = claimed.get(k - 1);
                keepLast = prev.baseOffset() + prev.startIdx() + prev.take() - 1;
            }
            boolean givenBack;
            try {
                givenBack = store.giveBack(first.partitionId(), group, worker, claimedLast, keepLast, returned - keep);
            } catch (SQLException e) {
                givenBack = false;
            }
            if (!givenBack) {
                kept.add(first.partitionId());
            }
            k = end;
        }
        if (kept.isEmpty()) {
            return out;
        }
        // a claim that could not be given back is delivered whole: decode what the cut left out of it
        List<PopResponseWriter.Delivered> whole = new ArrayList<>(claimed.size());
        for (int k = 0; k < claimed.size(); k++) {
            PopStore.ClaimedSegment s = claimed.get(k);
            if (kept.contains(s.partitionId())) {
                whole.add(new PopResponseWriter.Delivered(s,
                        plaintext(SegmentCodec.decode(s.blob(), s.startIdx(), s.take()))));
            } else if (k < out.size() && out.get(k).segment().baseOffset() == s.baseOffset()
                    && out.get(k).segment().partitionId().equals(s.partitionId())) {
                whole.add(out.get(k));
            }
        }
        return whole;
    }
}
