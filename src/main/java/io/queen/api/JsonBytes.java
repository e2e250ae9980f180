package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * A growable UTF-8 buffer for writing hot JSON answers (pop, ack) directly as bytes: no tree, no generator state
 * checks per value, constant fragments copied as prepared bytes. The caller is responsible for well-formedness;
 * every string that is not a prepared constant goes through {@link #string}, which quotes and escapes it.
 * Not thread-safe (one per answer).
 */
public final class JsonBytes {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};

    private byte[] buf;
    private int len;

    public JsonBytes(int initialCapacity) {
        this.buf = new byte[Math.max(64, initialCapacity)];
    }

    /**
     * {@code s} quoted and escaped as a JSON string, as UTF-8 bytes: exactly the bytes Jackson writes for it (also
     * for lone surrogates), so answers are byte-for-byte what the JSON trees used to produce.
     */
    public static byte[] quoted(String s) {
        try {
            return Json.MAPPER.writeValueAsBytes(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON string", e);
        }
    }

    /** ASCII text written as is (field names, punctuation: never user data). */
    public JsonBytes raw(String ascii) {
        int n = ascii.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[len++] = (byte) ascii.charAt(i);
        }
        return this;
    }

    /** One ASCII character (punctuation). */
    public JsonBytes raw(char c) {
        ensure(1);
        buf[len++] = (byte) c;
        return this;
    }

    /** Bytes written as is: a prepared fragment or a JSON value stored verbatim (a message payload). */
    public JsonBytes raw(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
        return this;
    }

    /**
     * A JSON string (quoted, escaped as Jackson escapes), or null. Printable ASCII is copied in the same pass that
     * checks it; anything else (escapes, non-ASCII) takes the Jackson detour.
     */
    public JsonBytes string(String s) {
        if (s == null) {
            return raw(NULL);
        }
        int n = s.length();
        ensure(n + 2);
        byte[] b = buf;
        int at = len;
        b[at++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
                return raw(quoted(s));   // nothing written yet: len has not moved
            }
            b[at++] = (byte) c;
        }
        b[at++] = '"';
        len = at;
        return this;
    }

    /** {@code s} as it {@link #string} writes it, for a value written many times (a queue name per message). */
    public static byte[] stringBytes(String s) {
        return new JsonBytes(s == null ? 4 : s.length() + 2).string(s).toByteArray();
    }

    /**
     * The last string it encoded and its bytes: for a value an answer repeats item after item (the queue and
     * partition of a push or an ack batch are almost always the same). Not thread-safe (one per answer).
     */
    public static final class Memo {
        private String last;
        private byte[] bytes = NULL;

        public byte[] of(String s) {
            if (s == null ? last != null : !s.equals(last)) {
                last = s;
                bytes = stringBytes(s);
            }
            return bytes;
        }
    }

    /** A constant ASCII fragment prepared once as bytes (field names, punctuation). */
    public static byte[] ascii(String fragment) {
        return fragment.getBytes(StandardCharsets.US_ASCII);
    }

    /** A UUID as a quoted JSON string, or null. */
    public JsonBytes uuid(UUID u) {
        if (u == null) {
            return raw(NULL);
        }
        ensure(38);
        buf[len++] = '"';
        hex(u.getMostSignificantBits() >>> 32, 8);
        buf[len++] = '-';
        hex(u.getMostSignificantBits() >>> 16, 4);
        buf[len++] = '-';
        hex(u.getMostSignificantBits(), 4);
        buf[len++] = '-';
        hex(u.getLeastSignificantBits() >>> 48, 4);
        buf[len++] = '-';
        hex(u.getLeastSignificantBits(), 12);
        buf[len++] = '"';
        return this;
    }

    public JsonBytes number(long v) {
        if (v < 0) {
            return raw(Long.toString(v));
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        ensure(digits);
        for (int i = len + digits - 1; i >= len; i--) {
            buf[i] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        len += digits;
        return this;
    }

    public JsonBytes bool(boolean v) {
        return raw(v ? TRUE : FALSE);
    }

    /** Bytes written so far (a mark for {@link #again}). */
    public int size() {
        return len;
    }

    /** Writes the bytes already written at [from, to) once more (a value the answer repeats under two keys). */
    public JsonBytes again(int from, int to) {
        int n = to - from;
        ensure(n);
        System.arraycopy(buf, from, buf, len, n);
        len += n;
        return this;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    private void hex(long v, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            buf[len + i] = HEX[(int) (v & 0xF)];
            v >>>= 4;
        }
        len += digits;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }
}
