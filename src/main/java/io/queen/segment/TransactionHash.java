package io.queen.segment;

import java.util.List;
import java.util.Objects;
import net.openhft.hashing.LongTupleHashFunction;

/**
 * The 16-byte key under which a transaction id is deduplicated: XXH3-128 (seed 0) of the id's UTF-8
 * bytes, written big-endian, high 64 bits first, i.e. the same bytes as the canonical hex that
 * {@code xxhsum -H2} prints. A segment's hash blob is these keys concatenated in frame order
 * ({@link #concat}), 16 bytes per frame.
 *
 * <p>Invariant: every result is exactly {@value #SIZE} bytes and depends only on the input bytes.
 * Stateless; thread-safe (the underlying hash function is immutable).
 */
public final class TransactionHash {

    /** Length of one hash in bytes. */
    public static final int SIZE = 16;

    private static final LongTupleHashFunction XXH3_128 = LongTupleHashFunction.xx128();
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TransactionHash() {}

    /**
     * Hash of a transaction id's UTF-8 encoding.
     *
     * @throws IllegalArgumentException if the id has an unpaired surrogate (it could not be stored in a frame)
     */
    public static byte[] of(String transactionId) {
        Objects.requireNonNull(transactionId, "transactionId");
        return of(Utf8.bytes(transactionId));
    }

    /** Hash of already-encoded bytes (not checked for UTF-8 validity). */
    public static byte[] of(byte[] utf8) {
        Objects.requireNonNull(utf8, "utf8");
        return of(utf8, 0, utf8.length);
    }

    /** Hash of {@code utf8[off, off+len)}. */
    public static byte[] of(byte[] utf8, int off, int len) {
        byte[] out = new byte[SIZE];
        writeTo(utf8, off, len, out, 0);
        return out;
    }

    /** Writes the hash of {@code utf8[off, off+len)} into {@code dst[dstOff, dstOff+16)}, e.g. straight into a hash blob. */
    public static void writeTo(byte[] utf8, int off, int len, byte[] dst, int dstOff) {
        Objects.checkFromIndexSize(off, len, utf8.length);
        Objects.checkFromIndexSize(dstOff, SIZE, dst.length);
        // zero-allocation-hashing returns {low64, high64}; the canonical XXH128 form is high64 first.
        long[] h = XXH3_128.hashBytes(utf8, off, len);
        FrameFormat.putLongBE(dst, dstOff, h[1]);
        FrameFormat.putLongBE(dst, dstOff + 8, h[0]);
    }

    /** Lowercase hex of a hash: 32 characters. */
    public static String hex(byte[] hash) {
        checkSize(hash);
        char[] out = new char[SIZE * 2];
        for (int i = 0; i < SIZE; i++) {
            out[2 * i] = HEX[(hash[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[hash[i] & 0xF];
        }
        return new String(out);
    }

    /** The hashes concatenated in list order (a segment's hash blob, 16 bytes per frame). */
    public static byte[] concat(List<byte[]> hashes) {
        Objects.requireNonNull(hashes, "hashes");
        byte[] out = new byte[Math.multiplyExact(hashes.size(), SIZE)];
        int p = 0;
        for (byte[] h : hashes) {
            checkSize(h);
            System.arraycopy(h, 0, out, p, SIZE);
            p += SIZE;
        }
        return out;
    }

    private static void checkSize(byte[] hash) {
        Objects.requireNonNull(hash, "hash");
        if (hash.length != SIZE) {
            throw new IllegalArgumentException("a transaction hash is " + SIZE + " bytes, got " + hash.length);
        }
    }
}
