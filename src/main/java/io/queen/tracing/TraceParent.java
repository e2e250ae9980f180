package io.queen.tracing;

import java.util.UUID;

/**
 * A W3C trace context ({@code traceparent}: {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}) as a
 * message keeps it: the trace id is the message's {@code traceId} UUID, the parent id the producer's span.
 * Immutable.
 *
 * @param traceId the 128-bit trace id, never all zero
 * @param spanId  the producer's span id, never 0
 * @param flags   the trace-flags byte (bit 0: sampled)
 */
public record TraceParent(UUID traceId, long spanId, byte flags) {

    /** The length of a version-00 header: 2 + 1 + 32 + 1 + 16 + 1 + 2. */
    private static final int LENGTH = 55;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Parses a {@code traceparent} as the W3C recommendation does: version {@code 00} exactly 55 characters; a
     * later version (not {@code ff}) may add fields after a dash, which are ignored; lowercase hex only; trace id
     * and parent id not all zero.
     *
     * @throws IllegalArgumentException saying what is wrong (the caller names the field)
     */
    public static TraceParent parse(String s) {
        int version = s == null || s.length() < LENGTH ? -1 : hex(s, 0, 2);
        if (version < 0 || version == 0xff || s.charAt(2) != '-' || s.charAt(35) != '-' || s.charAt(52) != '-'
                || (version == 0 ? s.length() != LENGTH : s.length() > LENGTH && s.charAt(LENGTH) != '-')
                || !allHex(s, 3, 35) || !allHex(s, 36, 52) || hex(s, 53, 55) < 0) {
            throw new IllegalArgumentException(
                    "must be a W3C traceparent: 00-<32 lowercase hex trace id>-<16 hex span id>-<2 hex flags>");
        }
        long hi = hexLong(s, 3);
        long lo = hexLong(s, 19);
        long span = hexLong(s, 36);
        if (hi == 0 && lo == 0) {
            throw new IllegalArgumentException("has an all-zero trace id");
        }
        if (span == 0) {
            throw new IllegalArgumentException("has an all-zero span id");
        }
        return new TraceParent(new UUID(hi, lo), span, (byte) hex(s, 53, 55));
    }

    /** The header value, version 00. */
    @Override
    public String toString() {
        return format(traceId, spanId, flags);
    }

    /** {@code 00-<trace id>-<span id>-<flags>} for a message's stored trace fields. */
    public static String format(UUID traceId, long spanId, byte flags) {
        char[] c = new char[LENGTH];
        c[0] = '0';
        c[1] = '0';
        c[2] = '-';
        put(c, 3, traceId.getMostSignificantBits());
        put(c, 19, traceId.getLeastSignificantBits());
        c[35] = '-';
        put(c, 36, spanId);
        c[52] = '-';
        c[53] = HEX[(flags >> 4) & 0xF];
        c[54] = HEX[flags & 0xF];
        return new String(c);
    }

    /** Whether the sampled bit is set. */
    public boolean sampled() {
        return (flags & 1) != 0;
    }

    private static void put(char[] c, int at, long v) {
        for (int i = 15; i >= 0; i--) {
            c[at + i] = HEX[(int) (v & 0xF)];
            v >>>= 4;
        }
    }

    /** 16 hex digits at {@code at} (checked by {@link #allHex} first) as a long. */
    private static long hexLong(String s, int at) {
        long v = 0;
        for (int i = at; i < at + 16; i++) {
            v = (v << 4) | digit(s.charAt(i));
        }
        return v;
    }

    private static boolean allHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (digit(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    private static int hex(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            int d = digit(s.charAt(i));
            if (d < 0) {
                return -1;
            }
            v = (v << 4) | d;
        }
        return v;
    }

    private static int digit(char ch) {
        return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    }
}
