package io.queen.push;

import io.queen.segment.KafkaTxnId;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The broker-side dedup index of one partition: every transaction id committed to it inside the dedup window, up
 * to offset {@link #verified()}. It lets a push tell SQL "I already checked these hashes against every offset &lt;=
 * verified", so the sidecar probe only scans what was written since (normally nothing), instead of the whole
 * window. It is an optimisation only: any doubt (cold index, a local hit, a window that grew since) sends
 * {@code -1} and SQL probes the whole window, which is always correct.
 *
 * <p>Two structures hold the ids. A Kafka idempotent producer's record ({@link KafkaTxnId}, canonical form) is kept
 * as its sequence in the ranges of its (producer id, epoch): a producer writes its sequences in order, so a
 * partition's millions of such ids fold into a handful of ranges, with no per-record memory and no per-record
 * removal at expiry. Every other id, the ids of segments holding no Kafka record (an HTTP push may carry any id), and
 * every id read back from the sidecar (hashes only: a cold start, or segments another broker wrote), are kept as the
 * fingerprint (first 64 bits) of its hash in a {@link FingerprintSet}.
 *
 * <p>Invariant: {@code valid} implies that every frame at offsets in (first offset inside the window, verified] has
 * its fingerprint in the set, or, when its id parses as {@link KafkaTxnId}, its sequence inside a range of its
 * producer and epoch. A lookup asks the set for every incoming id and, for a parsing one, its producer's ranges as
 * well. Both err only towards "known": fingerprints can be shared by two hashes ({@link FingerprintSet}), and a
 * range is expired as a whole once its newest frame left the window, so it may outlive its older sequences. "Known"
 * withholds a vouching and never grants a wrong one. Not thread-safe: touched only by the one flush of its
 * partition that is in flight (the fusion layer guarantees one at a time, with happens-before between flushes).
 */
final class DedupIndex {
    /** A committed span and the fingerprints of its frames kept in the set (8 bytes each: what expiry removes). */
    private record Span(long base, long end, long createdAtMillis, long[] fingerprints) {
    }

    /** A run of consecutive sequences of one producer epoch and the commit time of its newest frame. */
    private static final class Range {
        final long first;
        long last;
        long newestMillis;

        Range(long first, long newestMillis) {
            this.first = first;
            this.last = first;
            this.newestMillis = newestMillis;
        }
    }

    /** (producer id, epoch) of a Kafka idempotent producer. */
    private record ProducerEpoch(long producerId, long epoch) {
    }

    /**
     * Ranges kept per producer epoch. A producer writing in order needs one; a batch retried out of order after a
     * failed commit opens another.
     */
    static final int MAX_RANGES_PER_PRODUCER = 16;

    private final FingerprintSet set = new FingerprintSet(64);
    private final ArrayDeque<Span> spans = new ArrayDeque<>();
    /** Each producer epoch's ranges, oldest first; a range is only ever extended while it is the newest. */
    private final Map<ProducerEpoch, ArrayDeque<Range>> sequences = new HashMap<>();
    private int ranges;
    /** When (commit-time millis of the cutoff) the ranges are next looked at for expiry. */
    private long rangesExpireAt = Long.MIN_VALUE;
    private final long[] parsed = new long[3];
    private long verified = -1;
    private java.util.UUID partitionId;
    private boolean valid;
    private int windowSeconds;
    /**
     * The sweep round in which this index was refused for lack of budget, or -1: until the next round it is not
     * rebuilt from the sidecar (a rebuild over the budget would be read only to be dropped again, on every push).
     */
    long refusedInRound = -1;

    /** Whether the index covers the window up to {@link #verified()} (false: cold or emptied). */
    boolean valid() {
        return valid;
    }

    /** The partition id the coverage belongs to (a partition recreated under the same name has a new one). */
    java.util.UUID partitionId() {
        return partitionId;
    }

    long verified() {
        return verified;
    }

    int windowSeconds() {
        return windowSeconds;
    }

    /** Sequence ranges held (a lookup of one producer scans at most {@link #MAX_RANGES_PER_PRODUCER}). */
    int ranges() {
        return ranges;
    }

    /** Entries held, what the budget counts: fingerprints plus sequence ranges. */
    int size() {
        return set.size() + ranges;
    }

    /** The {@code p_verified} to send for these incoming hashes: -1 when any of them is already known. */
    long vouchFor(byte[] incoming) {
        return vouchFor(incoming, null);
    }

    /**
     * The {@code p_verified} to send for incoming frames, their hashes and (null: unknown) the UTF-8 of their
     * transaction ids in the same order: -1 when any of them is already known.
     */
    long vouchFor(byte[] incoming, byte[][] txns) {
        if (!valid || (txns == null && ranges > 0)) {
            return -1;   // ids known by hash only cannot be looked up in the ranges
        }
        ByteBuffer b = ByteBuffer.wrap(incoming);
        boolean fingerprints = set.size() > 0;
        boolean sequenced = txns != null && !sequences.isEmpty();
        if (!fingerprints && !sequenced) {
            return verified;
        }
        ProducerEpoch last = null;
        ArrayDeque<Range> lastRanges = null;
        for (int i = 0, k = 0; i < incoming.length; i += 16, k++) {
            if (fingerprints && set.contains(FingerprintSet.of(b.getLong(i)))) {
                return -1;
            }
            if (sequenced && KafkaTxnId.parse(txns[k], parsed)) {
                if (last == null || last.producerId() != parsed[0] || last.epoch() != parsed[1]) {
                    last = new ProducerEpoch(parsed[0], parsed[1]);
                    lastRanges = sequences.get(last);
                }
                if (lastRanges != null && holds(lastRanges, parsed[2])) {
                    return -1;
                }
            }
        }
        return verified;
    }

    private static boolean holds(ArrayDeque<Range> ranges, long sequence) {
        for (Iterator<Range> it = ranges.descendingIterator(); it.hasNext(); ) {
            Range r = it.next();
            if (sequence >= r.first && sequence <= r.last) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #append(long, long, long, byte[], byte[][], int)} for frames kept by their hashes only: read back from
     * the sidecar, or holding no Kafka record (any frame may be kept as a fingerprint, which every lookup asks).
     */
    boolean append(long base, long end, long createdAtMillis, byte[] hashes, int window) {
        return append(base, end, createdAtMillis, hashes, null, window);
    }

    /**
     * Records a committed span that continues {@link #verified()} (the caller appends any gap written by
     * another broker first), its frames' hashes and (null: unknown) the UTF-8 of their transaction ids. A span that
     * does not continue it, or a window that grew (it needs entries this index already evicted), empties the index
     * instead: it then vouches for nothing until rebuilt.
     *
     * @return whether the span was recorded
     */
    boolean append(long base, long end, long createdAtMillis, byte[] hashes, byte[][] txns, int window) {
        if (window != windowSeconds) {
            boolean grew = window > windowSeconds;
            windowSeconds = window;
            if (grew) {
                reset();
                return false;
            }
        }
        if (!valid || base != verified + 1) {
            reset();
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(hashes);
        int n = hashes.length / 16;
        long[] fps = new long[n];
        int kept = 0;
        ProducerEpoch last = null;
        ArrayDeque<Range> lastRanges = null;
        for (int k = 0; k < n; k++) {
            if (txns != null && KafkaTxnId.parse(txns[k], parsed)) {
                if (last == null || last.producerId() != parsed[0] || last.epoch() != parsed[1]) {
                    last = new ProducerEpoch(parsed[0], parsed[1]);
                    lastRanges = sequences.computeIfAbsent(last, x -> new ArrayDeque<>(2));
                }
                Range newest = lastRanges.peekLast();
                if (newest != null && parsed[2] == newest.last + 1) {
                    newest.last = parsed[2];
                    newest.newestMillis = createdAtMillis;
                    continue;
                }
                if (lastRanges.size() < MAX_RANGES_PER_PRODUCER) {
                    lastRanges.addLast(new Range(parsed[2], createdAtMillis));
                    ranges++;
                    continue;
                }
                // scattered sequences (ids chosen over HTTP, say) would make every lookup of this producer a long
                // scan: past the cap they are kept as fingerprints, which a lookup asks anyway
            }
            fps[kept] = FingerprintSet.of(b.getLong(16 * k));
            set.add(fps[kept++]);
        }
        spans.add(new Span(base, end, createdAtMillis, kept == n ? fps : Arrays.copyOf(fps, kept)));
        verified = end;
        expire(createdAtMillis - windowSeconds * 1000L);
        return true;
    }

    /** Marks the index as covering nothing yet at or below {@code lastOffset} (an empty partition). */
    void startAt(java.util.UUID pid, long lastOffset, int window) {
        reset();
        partitionId = pid;
        windowSeconds = window;
        verified = lastOffset;
        valid = true;
    }

    void reset() {
        // all at once: removing an index's fingerprints one by one cost a probe run each, and a sweep under budget
        // pressure drops whole indexes of millions
        spans.clear();
        set.clear();
        sequences.clear();
        ranges = 0;
        rangesExpireAt = Long.MIN_VALUE;
        verified = -1;
        valid = false;
    }

    private void expire(long cutoffMillis) {
        // the window is measured from each span's created_at, which is monotone per partition
        while (!spans.isEmpty() && spans.peek().createdAtMillis() < cutoffMillis) {
            drop(spans.poll());
        }
        if (ranges > 0 && cutoffMillis >= rangesExpireAt) {
            // a pass over every producer, a few times per window: kept longer, a range only errs towards "known"
            rangesExpireAt = cutoffMillis + Math.max(1_000L, windowSeconds * 250L);
            for (Iterator<ArrayDeque<Range>> it = sequences.values().iterator(); it.hasNext(); ) {
                ArrayDeque<Range> rs = it.next();
                // newest times grow along a producer's ranges: each stopped growing when the next one began
                while (!rs.isEmpty() && rs.peekFirst().newestMillis < cutoffMillis) {
                    rs.pollFirst();
                    ranges--;
                }
                if (rs.isEmpty()) {
                    it.remove();
                }
            }
        }
    }

    private void drop(Span s) {
        for (long fp : s.fingerprints()) {
            set.remove(fp);
        }
    }
}
