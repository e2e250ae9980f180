package io.queen.segment;

import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * One message as stored inside a segment.
 *
 * <p>Invariants, checked by the constructor: {@code messageId}, {@code transactionId} and {@code payload}
 * are non-null (an absent payload is an empty array); {@code transactionId} and {@code producerSub}, when
 * present, are well-formed UTF-16 whose UTF-8 encoding is at most {@value #MAX_STRING_BYTES} bytes, the
 * limit of their u16 length fields. {@code traceId} and {@code producerSub} may be null.
 *
 * <p>The payload array is not copied, neither here nor by the accessor: copying a 1 MiB payload per
 * frame on every push and pop would dominate the codec's cost. Treat it as read-only once a frame has
 * been built; with that convention a {@code Frame} is immutable and safe to share between threads.
 * {@link #equals}, {@link #hashCode} compare the payload by content, unlike a plain record.
 *
 * @param messageId     the message's UUID (normally a {@link Uuid7})
 * @param traceId       optional trace UUID, or null
 * @param transactionId the producer's transaction id (idempotency key), possibly empty
 * @param producerSub   optional authenticated producer subject, or null
 * @param encrypted     whether {@code payload} is ciphertext
 * @param payload       the message bytes exactly as the client sent them, or for a Kafka record its binary form
 * @param kafkaRecord   whether {@code payload} is a Kafka record in its binary form (flag 8; the layout is
 *                      {@code io.queen.envelope.KafkaRecordFormat}'s), not a JSON document
 * @param spanId        the producer's span id (W3C traceparent parent-id) when the message carries a whole span
 *                      context (flag 16), else 0; never non-zero without a {@code traceId}
 * @param traceFlags    the W3C trace-flags byte that came with {@code spanId} (bit 0 = sampled), 0 without one
 * @param key           the message's key for log compaction (flag 32), or null; like the payload it is not copied,
 *                      and under {@code encrypted} it is ciphertext too. Never set with {@code kafkaRecord}: a
 *                      Kafka record keeps its key inside its payload
 */
public record Frame(
        UUID messageId,
        UUID traceId,
        String transactionId,
        String producerSub,
        boolean encrypted,
        byte[] payload,
        boolean kafkaRecord,
        long spanId,
        byte traceFlags,
        byte[] key) {

    /** Upper bound of the UTF-8 length of {@code transactionId} and {@code producerSub} (u16 length field). */
    public static final int MAX_STRING_BYTES = 0xFFFF;

    private static final byte[] EMPTY = new byte[0];

    /**
     * The place of a record compaction removed: a frame with an empty body (u32 0). It keeps the positions of the
     * records after it, so a record's offset stays {@code base_offset + frame index} in a compacted segment too.
     * The decoder returns this one instance for every empty body, so {@link #isHole()} is an identity test; a
     * reader skips it (the offset is a gap, as one retention left) and never delivers it.
     */
    public static final Frame HOLE = new Frame(new UUID(0, 0), null, "", null, false, EMPTY, false);

    public Frame {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(transactionId, "transactionId");
        Objects.requireNonNull(payload, "payload (use an empty array)");
        checkUtf8Length("transactionId", transactionId);
        if (spanId != 0 && traceId == null) {
            throw new IllegalArgumentException("a span id needs a trace id");
        }
        if (producerSub != null) {
            checkUtf8Length("producerSub", producerSub);
        }
        if (key != null) {
            if (kafkaRecord) {
                throw new IllegalArgumentException("a Kafka record (flag 8) keeps its key in its payload");
            }
            if (key.length > MAX_STRING_BYTES) {
                throw new IllegalArgumentException("key is " + key.length + " bytes, more than the "
                        + MAX_STRING_BYTES + " a frame can hold");
            }
        }
    }

    /** A frame without a key (no flag 32). */
    public Frame(UUID messageId, UUID traceId, String transactionId, String producerSub, boolean encrypted,
            byte[] payload, boolean kafkaRecord, long spanId, byte traceFlags) {
        this(messageId, traceId, transactionId, producerSub, encrypted, payload, kafkaRecord, spanId, traceFlags,
                null);
    }

    /** A frame without a span context (no flag 16). */
    public Frame(UUID messageId, UUID traceId, String transactionId, String producerSub, boolean encrypted,
            byte[] payload, boolean kafkaRecord) {
        this(messageId, traceId, transactionId, producerSub, encrypted, payload, kafkaRecord, 0, (byte) 0);
    }

    /** A frame whose payload is a JSON document (no flag 8). */
    public Frame(UUID messageId, UUID traceId, String transactionId, String producerSub, boolean encrypted,
            byte[] payload) {
        this(messageId, traceId, transactionId, producerSub, encrypted, payload, false);
    }

    /** A frame with no trace id, no producer sub, not encrypted. */
    public static Frame of(UUID messageId, String transactionId, byte[] payload) {
        return new Frame(messageId, null, transactionId, null, false, payload == null ? EMPTY : payload);
    }

    /** Whether this is {@link #HOLE}, the place of a record compaction removed. */
    public boolean isHole() {
        return this == HOLE;
    }

    /** Size of this frame once encoded, including its 4-byte length prefix. */
    public long encodedSize() {
        if (isHole()) {
            return FrameFormat.LENGTH_PREFIX;
        }
        return FrameFormat.LENGTH_PREFIX + FrameFormat.bodyLength(FrameFormat.traceBytes(traceId != null, spanId),
                Utf8.encodedLength(transactionId), producerSub == null ? -1 : Utf8.encodedLength(producerSub),
                key == null ? -1 : key.length, payload.length);
    }

    /**
     * Size of a frame with these parts once encoded, including its 4-byte length prefix ({@code producerSubBytes
     * < 0}: no producer sub; {@code keyBytes < 0}: no key), for sizing a buffer before the frame objects exist.
     */
    public static long encodedSize(boolean trace, boolean span, int transactionIdBytes, int producerSubBytes,
            int keyBytes, long payloadBytes) {
        return FrameFormat.LENGTH_PREFIX + FrameFormat.bodyLength(FrameFormat.traceBytes(trace, span ? 1 : 0),
                transactionIdBytes, producerSubBytes, keyBytes, payloadBytes);
    }

    private static void checkUtf8Length(String field, String value) {
        int len;
        try {
            len = Utf8.encodedLength(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + " is not well-formed UTF-16: " + e.getMessage(), e);
        }
        if (len > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(
                    field + " is " + len + " UTF-8 bytes, more than the " + MAX_STRING_BYTES + " a frame can hold");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Frame f
                && encrypted == f.encrypted
                && kafkaRecord == f.kafkaRecord
                && spanId == f.spanId
                && traceFlags == f.traceFlags
                && messageId.equals(f.messageId)
                && Objects.equals(traceId, f.traceId)
                && transactionId.equals(f.transactionId)
                && Objects.equals(producerSub, f.producerSub)
                && Arrays.equals(key, f.key)
                && Arrays.equals(payload, f.payload);
    }

    @Override
    public int hashCode() {
        int h = messageId.hashCode();
        h = 31 * h + Objects.hashCode(traceId);
        h = 31 * h + transactionId.hashCode();
        h = 31 * h + Objects.hashCode(producerSub);
        h = 31 * h + Boolean.hashCode(encrypted);
        h = 31 * h + Boolean.hashCode(kafkaRecord);
        h = 31 * h + Long.hashCode(spanId);
        h = 31 * h + Arrays.hashCode(key);
        return 31 * h + Arrays.hashCode(payload);
    }

    /** Shows the payload's size, not its bytes: payloads may be large or sensitive. */
    @Override
    public String toString() {
        if (isHole()) {
            return "Frame[hole]";
        }
        return "Frame[messageId=" + messageId
                + ", traceId=" + traceId
                + (spanId == 0 ? "" : ", spanId=" + Long.toHexString(spanId) + ", traceFlags=" + traceFlags)
                + ", transactionId=" + transactionId
                + ", producerSub=" + producerSub
                + ", encrypted=" + encrypted
                + ", kafkaRecord=" + kafkaRecord
                + (key == null ? "" : ", key=" + key.length + " bytes")
                + ", payload=" + payload.length + " bytes]";
    }
}
