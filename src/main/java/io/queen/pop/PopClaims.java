package io.queen.pop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.cache.CappedMap;
import io.queen.config.QueenConfig;
import io.queen.crypto.PayloadCipher;
import io.queen.lease.AckRegistry;
import io.queen.lease.LeaseDirectory;
import io.queen.metrics.OpsMeter;
import io.queen.pop.PopService.Result;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import io.queen.wakeup.PopWaiters;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * A pop's claim: the {@link PopStore} call that leases (or, with autoAck, consumes) messages, pinned, queue-level
 * (recently written partitions first, {@link HotPartitions}, then a ranked scan above a remembered floor) or by
 * namespace/task; then the answer within its byte budget, and the lease registered ({@link LeaseDirectory},
 * {@link AckRegistry}). Remembers wildcard scan floors; thread-safe.
 */
@Singleton
public class PopClaims {
    private static final Logger LOG = Logger.getLogger(PopClaims.class);
    /** Slack for the 1 s quantization of last_write_at and clock skew between brokers. */
    private static final Duration FLOOR_SLACK = Duration.ofMinutes(2);
    /** A wildcard scan floor is trusted this long; then one full scan (covers seeks made on other brokers). */
    private static final Duration FLOOR_TTL = Duration.ofSeconds(30);
    /** Targeted claims a queue-level pop tries on recently written partitions before the discovery scan. */
    private static final int HOT_TRIES = 2;

    private record Floor(Instant floor, Instant setAt) {
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
    private final OpsMeter meter;
    private final QueenConfig config;
    private final PopClock clock;
    private final Counter hotClaims;
    private final Counter resleeps;
    private final Counter rankings;
    /** Emptied when full (pops may name queues that exist nowhere): a lost floor costs one full scan. */
    private final CappedMap<FloorKey, Floor> floors;

    PopClaims(PopStore store, PayloadCipher cipher, PopWaiters waiters, LeaseDirectory leases, AckRegistry ackRegistry,
            HotPartitions hot, OpsMeter meter, QueenConfig config, PopClock clock, MeterRegistry registry) {
        this.store = store;
        this.cipher = cipher;
        this.waiters = waiters;
        this.leases = leases;
        this.ackRegistry = ackRegistry;
        this.hot = hot;
        this.meter = meter;
        this.config = config;
        this.clock = clock;
        this.floors = new CappedMap<>(config.pop().maxTrackedQueues());
        this.resleeps = Counter.builder("queen.pop.resleeps")
                .description("parked pops that a commit woke and that slept on without a claim (its work was taken)")
                .register(registry);
        this.rankings = Counter.builder("queen.pop.rankings")
                .description("queue-level pop attempts that ranked the queue's partitions for claimable work")
                .register(registry);
        this.hotClaims = Counter.builder("queen.pop.hot.claims")
                .description("queue-level pops served by a targeted claim on a recently written partition")
                .register(registry);
    }

    /**
     * A pop's claim. {@code fusedOnly}: the pop was woken, and only by this broker's fused commits since its last
     * attempt; then a queue-level pop claims from the hot list only, and answers null (sleep on) without any SQL
     * when the group's list is handed out ({@link HotPartitions#handedOut}): the commits that woke it went to
     * other pops. Null: nothing claimable.
     */
    Result attempt(UUID tenant, PopRequest r, boolean fusedOnly) throws SQLException {
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
        HotPartitions.Hot list = hot.list(tenant, queue, r.group());  // taken before the scan it may settle
        boolean hotFirst = r.partitions() == 1 && (fusedOnly || !list.scanTurn());
        if (hotFirst) {
            // targeted claims on partitions this broker just wrote, before ranking the whole queue
            for (int i = 0; i < HOT_TRIES; i++) {
                String partition = list.take();
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
                return null;
            }
        }
        rankings.increment();
        FloorKey key = new FloorKey(tenant, queue, r.group());
        Instant started = clock.instant();
        Floor f = floors.get(key);
        Instant floor = f == null || f.setAt().plus(FLOOR_TTL).isBefore(started) ? Instant.EPOCH
                : f.floor().minus(FLOOR_SLACK);
        Result res = deliver(tenant, queue, r.group(), leaseId,
                store.popQueue(tenant, queue, claim, r.partitions(), floor));
        if (res == null) {
            list.settled();
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

    /** A group's cursors moved (possibly backwards): its wildcard scan floors no longer hold. */
    void forgetFloors(String group) {
        floors.removeKeysIf(k -> k.group().equals(group));
    }

    /**
     * Encrypted payloads and keys (frame flag 4) are decrypted: clients only ever see what the producer sent; a
     * Kafka record (flag 8) is given as its JSON envelope, its Kafka key as the message's key.
     */
    private List<Frame> plaintext(List<Frame> frames) {
        List<Frame> out = null;
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            if (f.encrypted() || f.kafkaRecord()) {
                if (out == null) {
                    out = new ArrayList<>(frames);
                }
                out.set(i, cipher.httpFrame(f));
            }
        }
        return out == null ? frames : out;
    }

    /**
     * A lease on nothing but compaction holes is completed at once: no message reached the client, so no ack would
     * ever end it and the group would meet the same holes again at every lease expiry. The cursor moves past them,
     * as it would past the gap of a deleted segment.
     */
    private void passHoles(UUID partition, String group, String leaseId, long last) {
        try {
            store.passHoles(partition, group, leaseId, last);
        } catch (SQLException e) {
            LOG.debugf("passing compaction holes failed (the lease expires instead): %s", e.getMessage());
        }
    }

    private Result deliver(UUID tenant, String queue, String group, String leaseId,
            List<PopStore.ClaimedSegment> claimed) {
        if (claimed.isEmpty()) {
            return null;
        }
        List<PopResponseWriter.Delivered> out = withinBudget(group, leaseId, claimed);
        OpsMeter.QueueMeter qm = meter.queue(tenant, queue);
        qm.increment(OpsMeter.POP_REQUESTS);
        long nowMs = clock.millis();
        Set<UUID> partitions = new LinkedHashSet<>();
        boolean remember = !leaseId.isEmpty() && ackRegistry.enabled();
        UUID current = null;
        AckRegistry.Digest digest = null;
        int n = 0;
        int partitionLive = 0;  // records (not compaction holes) delivered from the current partition so far
        for (int k = 0; k < out.size(); k++) {
            PopStore.ClaimedSegment s = out.get(k).segment();
            List<Frame> frames = out.get(k).frames();
            partitions.add(s.partitionId());
            if (!s.partitionId().equals(current)) {
                current = s.partitionId();
                digest = remember ? new AckRegistry.Digest() : null;
                partitionLive = 0;
            }
            int live = 0;
            for (Frame f : frames) {
                if (!f.isHole()) {
                    live++;
                    if (digest != null) {
                        digest.add(TransactionHash.of(f.transactionId()));
                    }
                }
            }
            n += live;
            partitionLive += live;
            // lag: now - createdAt, the same for every frame of a segment
            qm.delivered(live, s.createdAt() == null ? 0
                    : nowMs - (s.createdAt().toEpochSecond() * 1000 + s.createdAt().getNano() / 1_000_000));
            // segments of one partition arrive together, in offset order; the lease covers up to the last one
            boolean lastOfPartition = k + 1 == out.size() || !out.get(k + 1).segment().partitionId().equals(current);
            long last = s.baseOffset() + s.startIdx() + s.take() - 1;
            if (lastOfPartition && partitionLive == 0 && !leaseId.isEmpty()) {
                passHoles(current, group, leaseId, last);
            } else if (lastOfPartition && remember) {
                ackRegistry.delivered(leaseId, current, new AckRegistry.Batch(tenant, group, queue, s.partitionName(),
                        last, digest.count(), digest.hi(), digest.lo()));
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
