package io.queen.segment;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Mints RFC 9562 version-7 UUIDs: 48-bit Unix-epoch milliseconds, version 7, 12 bits {@code rand_a},
 * variant {@code 10}, 62 bits {@code rand_b} from a randomly seeded counter that advances by one per id
 * (RFC 9562 section 6.2, method 2 with increment 1, allowed where guessability is not an issue). Why a counter:
 * the ids of one push land in one segment and then differ only in their last bytes, so zstd stores a message id
 * in about 3 bytes instead of about 10 (62 random bits do not compress); the segment blob shrinks by ~4% for
 * 256-byte messages. Two brokers minting in the same millisecond still differ through their random seeds.
 *
 * <p>Invariant: within one JVM every id is strictly greater than the one minted before it (comparing
 * the 128 bits as unsigned, see {@link #compare}); ids minted by one thread are therefore strictly
 * increasing and ids minted concurrently are all distinct. This holds because the high 64 bits alone
 * advance on every call: a new millisecond starts {@code rand_a} at a random value below 2048, a
 * repeated (or backwards-stepping) clock increments it, and when all 12 bits are used up the timestamp
 * borrows the next millisecond (RFC 9562 section 6.2, method 3). The id may therefore run a few
 * milliseconds ahead of the clock under a burst of more than ~2k ids per millisecond.
 *
 * <p>Thread-safe and lock-free: one {@link AtomicLong} CAS per id for the high bits and one increment for
 * {@code rand_b} (ids need to be unique and ordered, not unguessable).
 */
public final class Uuid7 {

    private static final long VERSION_BITS = 0x7000L;
    private static final long RAND_A_MASK = 0xFFFL;
    private static final long VARIANT_BITS = 0x8000_0000_0000_0000L;
    private static final long RAND_B_MASK = 0x3FFF_FFFF_FFFF_FFFFL;

    /** High 64 bits of the last id minted; 0 before the first. */
    private static final AtomicLong LAST_MSB = new AtomicLong();
    /** {@code rand_b} source: random seed, +1 per id. */
    private static final AtomicLong RAND_B = new AtomicLong(new java.security.SecureRandom().nextLong());

    private Uuid7() {}

    /** A new UUIDv7, greater than every id this JVM minted before. */
    public static UUID next() {
        long now = System.currentTimeMillis();
        long msb;
        while (true) {
            long prev = LAST_MSB.get();
            long prevMs = prev >>> 16;
            if (now > prevMs) {
                // Random start, top bit clear: at least 2048 increments before borrowing a millisecond.
                msb = (now << 16) | VERSION_BITS | (ThreadLocalRandom.current().nextInt() & 0x7FF);
            } else if ((prev & RAND_A_MASK) != RAND_A_MASK) {
                msb = prev + 1;
            } else {
                msb = ((prevMs + 1) << 16) | VERSION_BITS;
            }
            if (LAST_MSB.compareAndSet(prev, msb)) {
                break;
            }
        }
        long lsb = VARIANT_BITS | (RAND_B.getAndIncrement() & RAND_B_MASK);
        return new UUID(msb, lsb);
    }

    /** The Unix-epoch millisecond timestamp of a version-7 UUID. */
    public static long timestampMillis(UUID id) {
        if (id.version() != 7) {
            throw new IllegalArgumentException("not a version 7 UUID: " + id);
        }
        return id.getMostSignificantBits() >>> 16;
    }

    /** The smallest version-7 UUID with timestamp {@code epochMillis}: a lower bound for time-range scans. */
    public static UUID minForMillis(long epochMillis) {
        if (epochMillis < 0 || epochMillis >= 1L << 48) {
            throw new IllegalArgumentException("timestamp outside 48 bits: " + epochMillis);
        }
        return new UUID((epochMillis << 16) | VERSION_BITS, VARIANT_BITS);
    }

    /**
     * Orders UUIDs by their 128 bits as unsigned numbers, which for v7 ids is mint order.
     * ({@link UUID#compareTo} compares signed halves, which is wrong once a half has its top bit set.)
     */
    public static int compare(UUID a, UUID b) {
        int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return c != 0 ? c : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
}
