package io.queen.push;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.queen.api.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * Writes the per-item results of {@code POST /api/v1/push} straight into JSON bytes, byte-for-byte what Jackson
 * writes for the equivalent {@code ObjectNode} tree (same key order, same escaping), without building the tree:
 * a push answers one object of ~10 fields per item, and the tree cost more CPU than the rest of the request.
 *
 * <p>Strings made only of printable ASCII other than {@code "} and {@code \} are copied as they are; any other
 * string goes through Jackson so escaping (control characters, surrogates) stays identical. Not thread-safe;
 * one writer per response.
 */
final class PushResponseWriter {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private byte[] buf;
    private int size;

    PushResponseWriter(int expectedItems) {
        this.buf = new byte[Math.max(64, expectedItems * 400)];
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    PushResponseWriter raw(String ascii) {
        int n = ascii.length();
        ensure(n);
        ascii.getBytes(0, n, buf, size);  // ASCII-only literals (field names, punctuation)
        size += n;
        return this;
    }

    PushResponseWriter raw(byte[] json) {
        ensure(json.length);
        System.arraycopy(json, 0, buf, size, json.length);
        size += json.length;
        return this;
    }

    PushResponseWriter raw(char c) {
        ensure(1);
        buf[size++] = (byte) c;
        return this;
    }

    PushResponseWriter number(long v) {
        if (v < 0) {
            return raw(Long.toString(v));
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        ensure(digits);
        for (int i = size + digits - 1; i >= size; i--) {
            buf[i] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        size += digits;
        return this;
    }

    /** A JSON string value (quoted), or {@code null} for a null reference. */
    PushResponseWriter string(String s) {
        if (s == null) {
            return raw("null");
        }
        int n = s.length();
        if (plainAscii(s, n)) {
            ensure(n + 2);
            buf[size++] = '"';
            s.getBytes(0, n, buf, size);
            size += n;
            buf[size++] = '"';
            return this;
        }
        byte[] quoted;
        try {
            quoted = Json.MAPPER.writeValueAsBytes(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON string", e);
        }
        return raw(quoted);
    }

    /** A UUID as a quoted JSON string, as {@link UUID#toString()} spells it. */
    PushResponseWriter uuid(UUID u) {
        ensure(38);
        buf[size++] = '"';
        long msb = u.getMostSignificantBits();
        long lsb = u.getLeastSignificantBits();
        hex(msb >>> 32, 8);
        buf[size++] = '-';
        hex(msb >>> 16, 4);
        buf[size++] = '-';
        hex(msb, 4);
        buf[size++] = '-';
        hex(lsb >>> 48, 4);
        buf[size++] = '-';
        hex(lsb, 12);
        buf[size++] = '"';
        return this;
    }

    private void hex(long v, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            buf[size + i] = HEX[(int) (v & 0xF)];
            v >>>= 4;
        }
        size += digits;
    }

    private static boolean plainAscii(String s, int n) {
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }
}
