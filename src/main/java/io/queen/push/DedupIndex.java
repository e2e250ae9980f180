package io.queen.push;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The broker-side dedup index of one partition: every transaction hash committed to it inside the dedup
 * window, up to offset {@link #verified()}. It lets a push tell SQL "I already checked these hashes against
 * every offset &lt;= verified", so the sidecar probe only scans what was written since (normally nothing),
 * instead of the whole window. It is an optimisation only: any doubt (cold index, a local hit, a window that
 * grew since) sends {@code -1} and SQL probes the whole window, which is always correct.
 *
 * <p>Invariant: {@code valid} implies the set holds the fingerprint (first 64 bits) of the hash of every frame
 * at offsets in (first offset inside the window, verified]. Fingerprints can only err towards "known" (two hashes
 * sharing one), which withholds a vouching and never grants a wrong one ({@link FingerprintSet}). Not
 * thread-safe: touched only by the one flush of its partition that is in flight (the fusion layer guarantees one
 * at a time, with happens-before between flushes).
 */
final class DedupIndex {
    /** A committed span and the fingerprints of its frames (8 bytes each: what expiry needs to remove). */
    private record Span(long base, long end, long createdAtMillis, long[] fingerprints) {
    }

    private final FingerprintSet set = new FingerprintSet(64);
    private final ArrayDeque<Span> spans = new ArrayDeque<>();
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

    int size() {
        return set.size();
    }

    /** The {@code p_verified} to send for these incoming hashes: -1 when any of them is already known. */
    long vouchFor(byte[] incoming) {
        if (!valid) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(incoming);
        for (int i = 0; i < incoming.length; i += 16) {
            if (set.contains(FingerprintSet.of(b.getLong(i)))) {
                return -1;
            }
        }
        return verified;
    }

    /**
     * Records a committed span that continues {@link #verified()} (the caller appends any gap written by
     * another broker first). A span that does not continue it, or a window that grew (it needs hashes this
     * index already evicted), empties the index instead: it then vouches for nothing until rebuilt.
     *
     * @return whether the span was recorded
     */
    boolean append(long base, long end, long createdAtMillis, byte[] hashes, int window) {
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
        long[] fps = new long[hashes.length / 16];
        for (int k = 0; k < fps.length; k++) {
            fps[k] = FingerprintSet.of(b.getLong(16 * k));
            set.add(fps[k]);
        }
        spans.add(new Span(base, end, createdAtMillis, fps));
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
        while (!spans.isEmpty()) {
            drop(spans.poll());
        }
        verified = -1;
        valid = false;
    }

    private void expire(long cutoffMillis) {
        // the window is measured from each span's created_at, which is monotone per partition
        while (!spans.isEmpty() && spans.peek().createdAtMillis() < cutoffMillis) {
            drop(spans.poll());
        }
    }

    private void drop(Span s) {
        for (long fp : s.fingerprints()) {
            set.remove(fp);
        }
    }
}
