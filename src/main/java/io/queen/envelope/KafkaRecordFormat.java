package io.queen.envelope;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The binary form in which the Kafka listener stores a record as a frame's payload (frame flag 8), all integers
 * big-endian:
 * <pre>
 * i64 timestamp
 * i32 key_len (-1: no key)      u8[key_len] key
 * i32 header_count              per header: i32 key_len, u8[key_len] key (UTF-8), i32 value_len (-1: null), value
 * i32 value_len (-1: null)      u8[value_len] value
 * </pre>
 * It costs a copy of the record's parts, where the JSON envelope ({@link RecordEnvelope}) cost a parse of the value,
 * UTF-8 checks and base64: Kafka clients read it back without any of that, and an HTTP reader gets the JSON envelope
 * rendered from it ({@link RecordEnvelope#httpPayload}), so both views stay what they were. Stateless, thread-safe.
 */
public final class KafkaRecordFormat {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private KafkaRecordFormat() {
    }

    /** The record's binary form; {@code key}, {@code value} and header values may be null. Reads no buffer's position. */
    public static byte[] encode(long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers) {
        int size = 8 + 4 + length(key) + 4 + 4 + length(value);
        byte[][] headerKeys = new byte[headers == null ? 0 : headers.length][];
        for (int i = 0; i < headerKeys.length; i++) {
            headerKeys[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
            byte[] v = headers[i].value();
            size += 4 + headerKeys[i].length + 4 + (v == null ? 0 : v.length);
        }
        byte[] out = new byte[size];
        LONG.set(out, 0, timestamp);
        int p = put(out, 8, key);
        INT.set(out, p, headerKeys.length);
        p += 4;
        for (int i = 0; i < headerKeys.length; i++) {
            p = put(out, p, headerKeys[i]);
            p = put(out, p, headers[i].value());
        }
        put(out, p, value);
        return out;
    }

    /**
     * A stored record read in place: {@code key} and {@code value} are views of the stored bytes (null when the
     * record has none), positioned at their first byte and limited at their last; header keys and values are copies.
     */
    public record View(long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers) {
    }

    private static final Header[] NO_HEADERS = new Header[0];

    /** The record stored as {@code bytes}; null when they are not a well-formed binary record. */
    public static RecordEnvelope.Kafka decode(byte[] bytes) {
        View v = view(bytes, 0, bytes.length);
        return v == null ? null : copied(v);
    }

    /**
     * The record stored as {@code bytes[off, off + len)}, its key and value not copied (what a Kafka fetch writes
     * straight into a record batch); null when those bytes are not a well-formed binary record.
     */
    public static View view(byte[] bytes, int off, int len) {
        Reader in = new Reader(bytes, off, off + len);
        try {
            long timestamp = in.long8();
            ByteBuffer key = in.slice();
            int count = in.int4();
            // a header takes at least 8 bytes: a count beyond what is left is damage, not an allocation to make
            if (count < 0 || count > (in.end - in.at) / 8) {
                return null;
            }
            Header[] headers = count == 0 ? NO_HEADERS : new Header[count];
            for (int i = 0; i < count; i++) {
                ByteBuffer k = in.slice();
                if (k == null) {
                    return null;
                }
                headers[i] = new RecordHeader(new String(bytes, k.position(), k.remaining(), StandardCharsets.UTF_8),
                        copy(in.slice()));
            }
            ByteBuffer value = in.slice();
            return in.at != in.end ? null : new View(timestamp, key, value, headers);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * {@link #view} of a record a writer stored (frame flag 8): the segment's zstd checksum passed, so bytes that are
     * not a well-formed record are what was written, a writer's defect (IllegalStateException), not bad input.
     */
    public static View stored(byte[] bytes, int off, int len) {
        View v = view(bytes, off, len);
        if (v == null) {
            throw new IllegalStateException("a stored Kafka record (frame flag 8) is not well-formed");
        }
        return v;
    }

    /** {@link #stored} with the key and value copied out of the stored bytes. */
    public static RecordEnvelope.Kafka storedCopy(byte[] bytes) {
        return copied(stored(bytes, 0, bytes.length));
    }

    /** The record {@code v} with its key and value copied out of the bytes it views. */
    private static RecordEnvelope.Kafka copied(View v) {
        return new RecordEnvelope.Kafka(v.timestamp(), copy(v.key()), copy(v.value()), v.headers());
    }

    private static byte[] copy(ByteBuffer b) {
        return b == null ? null
                : Arrays.copyOfRange(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
    }

    private static int length(ByteBuffer b) {
        return b == null ? 0 : b.remaining();
    }

    /** Writes {@code b} length-prefixed at {@code p} (-1: null); returns the position after it. */
    private static int put(byte[] out, int p, ByteBuffer b) {
        INT.set(out, p, b == null ? -1 : b.remaining());
        if (b == null) {
            return p + 4;
        }
        int n = b.remaining();
        if (b.hasArray()) {
            System.arraycopy(b.array(), b.arrayOffset() + b.position(), out, p + 4, n);
        } else {
            b.duplicate().get(out, p + 4, n);
        }
        return p + 4 + n;
    }

    private static int put(byte[] out, int p, byte[] b) {
        INT.set(out, p, b == null ? -1 : b.length);
        if (b == null) {
            return p + 4;
        }
        System.arraycopy(b, 0, out, p + 4, b.length);
        return p + 4 + b.length;
    }

    /** Reads the fields of {@code bytes[at, end)} in order; IllegalArgumentException for anything past the end. */
    private static final class Reader {
        final byte[] bytes;
        final int end;
        int at;

        Reader(byte[] bytes, int at, int end) {
            this.bytes = bytes;
            this.at = at;
            this.end = end;
        }

        private void need(int n) {
            if (n < 0 || n > end - at) {
                throw new IllegalArgumentException("length " + n + " past the end");
            }
        }

        long long8() {
            need(8);
            long v = (long) LONG.get(bytes, at);
            at += 8;
            return v;
        }

        int int4() {
            need(4);
            int v = (int) INT.get(bytes, at);
            at += 4;
            return v;
        }

        /** The next length-prefixed bytes as a view of them (-1: null). */
        ByteBuffer slice() {
            int n = int4();
            if (n == -1) {
                return null;
            }
            need(n);
            ByteBuffer out = ByteBuffer.wrap(bytes, at, n);
            at += n;
            return out;
        }
    }
}
