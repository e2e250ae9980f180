package io.queen.push;

/**
 * An open-addressing multiset of 64-bit fingerprints of transaction hashes (the first 8 bytes of the xxh3-128),
 * one {@code long} per slot, no per-entry objects: 16-32 bytes per entry at load factor 0.25-0.5. Linear probing
 * with backward-shift deletion, so evictions leave no tombstones. A fingerprint accepted again beyond the dedup
 * window occupies a second slot, so expiring the older occurrence does not forget the newer one.
 *
 * <p>Why 64 bits are enough: the broker only uses the set to decide whether it may vouch for a segment
 * ({@link DedupIndex#vouchFor}); a false "present" (two hashes sharing a fingerprint, or a fingerprint 0 folded
 * onto 1) only withholds the vouching, and SQL then probes the whole window with the full 128-bit hashes. A
 * hash that is present always matches its own fingerprint, so nothing is vouched for wrongly. Not thread-safe.
 */
final class FingerprintSet {
    /** 0 marks an empty slot, so the fingerprint 0 is stored as 1 (a harmless extra collision, see above). */
    private static final long EMPTY = 0;

    private long[] slots;
    private int size;
    private int mask;
    private final int initialSlots;

    FingerprintSet(int expected) {
        initialSlots = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        alloc(initialSlots);
    }

    /** The fingerprint of a 128-bit hash whose first 8 bytes (big-endian) are {@code hi}. */
    static long of(long hi) {
        return hi == EMPTY ? 1 : hi;
    }

    private void alloc(int cap) {
        slots = new long[cap];
        mask = cap - 1;
        size = 0;
    }

    /** Occurrences held (a fingerprint added twice counts twice). */
    int size() {
        return size;
    }

    private static int home(long fp, int mask) {
        long x = fp * 0x9E3779B97F4A7C15L;   // xxh3 is well mixed already; this spreads any low-bit pattern
        return (int) (x ^ (x >>> 32)) & mask;
    }

    boolean contains(long fp) {
        for (int i = home(fp, mask); slots[i] != EMPTY; i = (i + 1) & mask) {
            if (slots[i] == fp) {
                return true;
            }
        }
        return false;
    }

    /** Adds one occurrence of a fingerprint from {@link #of}. */
    void add(long fp) {
        if ((size + 1) * 2 > slots.length) {
            grow();
        }
        place(fp);
    }

    /** Puts one occurrence in the first free slot of its probe run (the caller made sure there is room). */
    private void place(long fp) {
        int i = home(fp, mask);
        while (slots[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        slots[i] = fp;
        size++;
    }

    /** Removes one occurrence; true when there was one. */
    boolean remove(long fp) {
        for (int i = home(fp, mask); slots[i] != EMPTY; i = (i + 1) & mask) {
            if (slots[i] == fp) {
                shiftBack(i);
                size--;
                return true;
            }
        }
        return false;
    }

    /** Backward-shift deletion: move later members of the probe run into the hole when their home allows. */
    private void shiftBack(int hole) {
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (slots[i] == EMPTY) {
                break;
            }
            int home = home(slots[i], mask);
            boolean movable = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
            if (movable) {
                slots[hole] = slots[i];
                hole = i;
            }
        }
        slots[hole] = EMPTY;
    }

    /** Forgets every occurrence and gives back the slots: a dropped index holds no memory beyond its first size. */
    void clear() {
        alloc(initialSlots);
    }

    private void grow() {
        long[] old = slots;
        alloc(old.length * 2);
        for (long fp : old) {
            if (fp != EMPTY) {
                place(fp);
            }
        }
    }
}
