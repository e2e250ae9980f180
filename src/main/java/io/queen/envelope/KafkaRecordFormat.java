package io.queen.envelope;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putLong(timestamp);
        put(out, key);
        out.putInt(headerKeys.length);
        for (int i = 0; i < headerKeys.length; i++) {
            out.putInt(headerKeys[i].length).put(headerKeys[i]);
            byte[] v = headers[i].value();
            out.putInt(v == null ? -1 : v.length);
            if (v != null) {
                out.put(v);
            }
        }
        put(out, value);
        return out.array();
    }

    /** The record stored as {@code bytes}; null when they are not a well-formed binary record. */
    public static RecordEnvelope.Kafka decode(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            long timestamp = in.getLong();
            byte[] key = bytes(in);
            int count = in.getInt();
            // a header takes at least 8 bytes: a count beyond what is left is damage, not an allocation to make
            if (count < 0 || count > in.remaining() / 8) {
                return null;
            }
            Header[] headers = new Header[count];
            for (int i = 0; i < count; i++) {
                byte[] k = bytes(in);
                if (k == null) {
                    return null;
                }
                headers[i] = new RecordHeader(new String(k, StandardCharsets.UTF_8), bytes(in));
            }
            byte[] value = bytes(in);
            return in.hasRemaining() ? null : new RecordEnvelope.Kafka(timestamp, key, value, headers);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            return null;
        }
    }

    private static int length(ByteBuffer b) {
        return b == null ? 0 : b.remaining();
    }

    private static void put(ByteBuffer out, ByteBuffer b) {
        out.putInt(b == null ? -1 : b.remaining());
        if (b != null) {
            out.put(b.duplicate());
        }
    }

    /** The next length-prefixed bytes (-1: null); IllegalArgumentException for a length past the end. */
    private static byte[] bytes(ByteBuffer in) {
        int n = in.getInt();
        if (n == -1) {
            return null;
        }
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("length " + n + " past the end");
        }
        byte[] out = new byte[n];
        in.get(out);
        return out;
    }
}
