package io.queen.segment;

import io.queen.segment.SegmentFormatException.Kind;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.UUID;

/**
 * The byte layout of one frame (see {@link io.queen.segment}): constants, primitive accessors and the
 * body parser shared by the in-memory and the streaming decoders.
 *
 * <p>Invariant: {@link #parseBody} reads only inside {@code [off, off+len)} and checks every length
 * before using it, so malformed bodies end in {@link SegmentFormatException}, never in an
 * {@code IndexOutOfBoundsException}. Stateless, thread-safe.
 */
final class FrameFormat {

    static final int FLAG_TRACE = 1;
    static final int FLAG_PRODUCER_SUB = 2;
    static final int FLAG_ENCRYPTED = 4;
    static final int FLAG_KAFKA_RECORD = 8;
    static final int FLAG_SPAN = 16;
    static final int FLAG_KEY = 32;
    static final int KNOWN_FLAGS = FLAG_TRACE | FLAG_PRODUCER_SUB | FLAG_ENCRYPTED | FLAG_KAFKA_RECORD | FLAG_SPAN
            | FLAG_KEY;
    /** span_id (u64, big-endian as W3C writes it in hex) + trace_flags (u8), after trace_id when flag 16 is set. */
    static final int SPAN_BYTES = 8 + 1;

    static final int LENGTH_PREFIX = 4;
    static final int UUID_BYTES = 16;
    /** flags + message_id + txn_len: the smallest possible body. */
    static final int MIN_BODY = 1 + UUID_BYTES + 2;

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT_LE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private FrameFormat() {}

    /**
     * Body length for the given field sizes; {@code traceBytes} is 0, {@link #UUID_BYTES} or {@link #UUID_BYTES}
     * + {@link #SPAN_BYTES}; {@code psubLen < 0} means no producer sub, {@code keyLen < 0} no key.
     */
    static long bodyLength(int traceBytes, int txnLen, int psubLen, int keyLen, long payloadLen) {
        return 1L + UUID_BYTES + traceBytes + 2 + txnLen + (psubLen >= 0 ? 2L + psubLen : 0)
                + (keyLen >= 0 ? 2L + keyLen : 0) + payloadLen;
    }

    /** Bytes the trace fields take: none, the trace id, or the trace id and the span context. */
    static int traceBytes(boolean trace, long spanId) {
        return !trace ? 0 : spanId == 0 ? UUID_BYTES : UUID_BYTES + SPAN_BYTES;
    }

    static int flags(boolean trace, long spanId, boolean psub, boolean encrypted, boolean kafkaRecord, boolean key) {
        return (trace ? FLAG_TRACE : 0) | (trace && spanId != 0 ? FLAG_SPAN : 0) | (psub ? FLAG_PRODUCER_SUB : 0)
                | (encrypted ? FLAG_ENCRYPTED : 0) | (kafkaRecord ? FLAG_KAFKA_RECORD : 0) | (key ? FLAG_KEY : 0);
    }

    // ---- primitive access; callers guarantee the bounds ----

    static long u32(byte[] b, int off) {
        return Integer.toUnsignedLong((int) INT_LE.get(b, off));
    }

    static void putU32(byte[] b, int off, long v) {
        INT_LE.set(b, off, (int) v);
    }

    static int u16(byte[] b, int off) {
        return Short.toUnsignedInt((short) SHORT_LE.get(b, off));
    }

    static void putU16(byte[] b, int off, int v) {
        SHORT_LE.set(b, off, (short) v);
    }

    static UUID uuid(byte[] b, int off) {
        return new UUID((long) LONG_BE.get(b, off), (long) LONG_BE.get(b, off + 8));
    }

    static void putUuid(byte[] b, int off, UUID u) {
        LONG_BE.set(b, off, u.getMostSignificantBits());
        LONG_BE.set(b, off + 8, u.getLeastSignificantBits());
    }

    static void putLongBE(byte[] b, int off, long v) {
        LONG_BE.set(b, off, v);
    }

    /**
     * Parses the body at {@code b[off, off+len)} (the bytes after its u32 prefix); an empty body is
     * {@link Frame#HOLE}. {@code frameIndex} and
     * {@code framePos} only make error messages actionable.
     */
    static Frame parseBody(byte[] b, int off, int len, long frameIndex, long framePos) {
        if (len == 0) {
            return Frame.HOLE;
        }
        int flags = checkedFlags(b, off, len, frameIndex, framePos);
        boolean trace = (flags & FLAG_TRACE) != 0;
        boolean span = (flags & FLAG_SPAN) != 0;
        int end = off + len;
        int p = off + 1;
        UUID messageId = uuid(b, p);
        p += UUID_BYTES;
        UUID traceId = null;
        if (trace) {
            traceId = uuid(b, p);
            p += UUID_BYTES;
        }
        long spanId = 0;
        byte traceFlags = 0;
        if (span) {
            spanId = (long) LONG_BE.get(b, p);
            traceFlags = b[p + 8];
            p += SPAN_BYTES;
        }
        int txnLen = txnLength(b, p, end, frameIndex, framePos);
        p += 2;
        String txn = string(b, p, txnLen, "transaction_id", frameIndex, framePos);
        p += txnLen;
        String psub = null;
        if ((flags & FLAG_PRODUCER_SUB) != 0) {
            int psubLen = optionalFieldLength(b, p, end, "psub_len", frameIndex, framePos);
            p += 2;
            psub = string(b, p, psubLen, "producer_sub", frameIndex, framePos);
            p += psubLen;
        }
        byte[] key = null;
        if ((flags & FLAG_KEY) != 0) {
            int keyLen = optionalFieldLength(b, p, end, "key_len", frameIndex, framePos);
            p += 2;
            key = Arrays.copyOfRange(b, p, p + keyLen);
            p += keyLen;
        }
        byte[] payload = Arrays.copyOfRange(b, p, end);
        return new Frame(messageId, traceId, txn, psub, (flags & FLAG_ENCRYPTED) != 0, payload,
                (flags & FLAG_KAFKA_RECORD) != 0, spanId, traceFlags, key);
    }

    /**
     * The flags of the non-empty body at {@code b[off, off+len)}, checked as {@link #parseBody} checks them: no
     * unknown bit, no span without a trace id, no key beside a Kafka record, a non-zero span id, and a body at
     * least as long as the fixed fields its flags announce.
     */
    static int checkedFlags(byte[] b, int off, int len, long frameIndex, long framePos) {
        int flags = b[off] & 0xFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw error(Kind.BAD_FLAGS, "unknown flag bits 0x" + Integer.toHexString(flags & ~KNOWN_FLAGS), frameIndex, framePos);
        }
        boolean trace = (flags & FLAG_TRACE) != 0;
        boolean span = (flags & FLAG_SPAN) != 0;
        if (span && !trace) {
            throw error(Kind.BAD_FLAGS, "flag 16 (span context) without flag 1 (trace id)", frameIndex, framePos);
        }
        if ((flags & FLAG_KEY) != 0 && (flags & FLAG_KAFKA_RECORD) != 0) {
            throw error(Kind.BAD_FLAGS, "flag 32 (key) with flag 8 (a Kafka record keeps its key in its payload)",
                    frameIndex, framePos);
        }
        int fixed = MIN_BODY + (trace ? UUID_BYTES : 0) + (span ? SPAN_BYTES : 0);
        if (len < fixed) {
            throw error(Kind.TRUNCATED_FRAME, "body of " + len + " bytes is shorter than its " + fixed + " fixed bytes", frameIndex, framePos);
        }
        if (span && (long) LONG_BE.get(b, off + 1 + 2 * UUID_BYTES) == 0) {
            throw error(Kind.BAD_FLAGS, "flag 16 with an all-zero span id", frameIndex, framePos);
        }
        return flags;
    }

    /**
     * Where the payload of the non-empty body at {@code b[off, off+len)} starts, every length on the way checked
     * as {@link #parseBody} checks it; the ids and strings before it are neither decoded nor checked for UTF-8 (a
     * reader that wants only the payload, the Kafka fetch, skips them).
     */
    static int payloadAt(byte[] b, int off, int len, int flags, long frameIndex, long framePos) {
        int end = off + len;
        int p = off + 1 + UUID_BYTES + ((flags & FLAG_TRACE) != 0 ? UUID_BYTES : 0)
                + ((flags & FLAG_SPAN) != 0 ? SPAN_BYTES : 0);
        p += 2 + txnLength(b, p, end, frameIndex, framePos);
        if ((flags & FLAG_PRODUCER_SUB) != 0) {
            p += 2 + optionalFieldLength(b, p, end, "psub_len", frameIndex, framePos);
        }
        if ((flags & FLAG_KEY) != 0) {
            p += 2 + optionalFieldLength(b, p, end, "key_len", frameIndex, framePos);
        }
        return p;
    }

    /** The u16 txn_len at {@code b[p]}, checked against the body's end. */
    private static int txnLength(byte[] b, int p, int end, long frameIndex, long framePos) {
        int txnLen = u16(b, p);
        if (txnLen > end - p - 2) {
            throw error(Kind.LENGTH_PAST_END, "txn_len " + txnLen + " exceeds the " + (end - p - 2) + " body bytes left", frameIndex, framePos);
        }
        return txnLen;
    }

    /** The u16 length at {@code b[p]} of a field its flag announced, checked against the body's end. */
    private static int optionalFieldLength(byte[] b, int p, int end, String name, long frameIndex, long framePos) {
        if (end - p < 2) {
            throw error(Kind.TRUNCATED_FRAME, "body ends before " + name, frameIndex, framePos);
        }
        int len = u16(b, p);
        if (len > end - p - 2) {
            throw error(Kind.LENGTH_PAST_END, name + " " + len + " exceeds the " + (end - p - 2) + " body bytes left",
                    frameIndex, framePos);
        }
        return len;
    }

    private static String string(byte[] b, int off, int len, String field, long frameIndex, long framePos) {
        if (!Utf8.isWellFormed(b, off, len)) {
            throw error(Kind.BAD_UTF8, field + " is not well-formed UTF-8", frameIndex, framePos);
        }
        return Utf8.decodeWellFormed(b, off, len);
    }

    static SegmentFormatException error(Kind kind, String what, long frameIndex, long framePos) {
        return new SegmentFormatException(kind, "frame " + frameIndex + " at raw offset " + framePos + ": " + what);
    }
}
