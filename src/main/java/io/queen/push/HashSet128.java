package io.queen.push;

/**
 * An open-addressing multiset of 128-bit hashes stored as two longs and a count (about 40 bytes per entry at
 * load factor 0.5, no per-entry objects), with linear probing and backward-shift deletion so evictions leave
 * no tombstones. Counting matters: a hash accepted again beyond the dedup window is held twice, and expiring
 * the older copy must not forget the newer one. Not thread-safe.
 */
final class HashSet128 {
    private long[] hi;
    private long[] lo;
    private int[] count;
    private int size;
    private int mask;
    private int zeroCount;

    HashSet128(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        alloc(cap);
    }

    private void alloc(int cap) {
        hi = new long[cap];
        lo = new long[cap];
        count = new int[cap];
        mask = cap - 1;
        size = 0;
    }

    int size() {
        return size + (zeroCount > 0 ? 1 : 0);
    }

    long bytesUsed() {
        return (long) hi.length * 20;
    }

    private static int slot(long h, long l, int mask) {
        long x = h ^ (l * 0x9E3779B97F4A7C15L);
        return (int) (x ^ (x >>> 32)) & mask;
    }

    boolean contains(long h, long l) {
        if (h == 0 && l == 0) {
            return zeroCount > 0;
        }
        for (int i = slot(h, l, mask); count[i] > 0; i = (i + 1) & mask) {
            if (hi[i] == h && lo[i] == l) {
                return true;
            }
        }
        return false;
    }

    /** Adds one occurrence; true when the hash was not present before. */
    boolean add(long h, long l) {
        return add(h, l, 1);
    }

    private boolean add(long h, long l, int n) {
        if (h == 0 && l == 0) {
            zeroCount += n;
            return zeroCount == n;
        }
        if ((size + 1) * 2 > hi.length) {
            grow();
        }
        int i = slot(h, l, mask);
        for (; count[i] > 0; i = (i + 1) & mask) {
            if (hi[i] == h && lo[i] == l) {
                count[i] += n;
                return false;
            }
        }
        count[i] = n;
        hi[i] = h;
        lo[i] = l;
        size++;
        return true;
    }

    /** Removes one occurrence; true when it was present. */
    boolean remove(long h, long l) {
        if (h == 0 && l == 0) {
            boolean had = zeroCount > 0;
            zeroCount = Math.max(0, zeroCount - 1);
            return had;
        }
        int i = slot(h, l, mask);
        for (; count[i] > 0; i = (i + 1) & mask) {
            if (hi[i] == h && lo[i] == l) {
                if (--count[i] == 0) {
                    count[i] = 1;
                    shiftBack(i);
                    size--;
                }
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
            if (count[i] == 0) {
                break;
            }
            int home = slot(hi[i], lo[i], mask);
            boolean movable = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
            if (movable) {
                hi[hole] = hi[i];
                lo[hole] = lo[i];
                count[hole] = count[i];
                hole = i;
            }
        }
        count[hole] = 0;
        hi[hole] = 0;
        lo[hole] = 0;
    }

    private void grow() {
        long[] oh = hi;
        long[] ol = lo;
        int[] oc = count;
        alloc(oh.length * 2);
        for (int i = 0; i < oh.length; i++) {
            if (oc[i] > 0) {
                add(oh[i], ol[i], oc[i]);
            }
        }
    }
}
