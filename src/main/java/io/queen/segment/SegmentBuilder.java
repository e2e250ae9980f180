package io.queen.segment;

import com.github.luben.zstd.Zstd;
import io.queen.segment.SegmentFormatException.Kind;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * Accumulates frames into one raw buffer and compresses them as a single zstd frame.
 *
 * <p>Frames are written straight into one growable array (doubling), so adding a frame allocates
 * nothing besides occasional growth: strings are UTF-8-encoded in place and payloads copied once.
 * Compression happens once per segment in {@link #compress(int)}, never per frame, which is what gives
 * similar JSON messages their ratio.
 *
 * <p>Invariants: {@code buffer[0, rawSize())} always holds exactly {@link #frameCount()} complete,
 * well-formed frames (a rejected {@code add} leaves the builder unchanged), and {@link #rawSize()} never
 * exceeds {@link SegmentCodec#MAX_RAW_SEGMENT_BYTES}, so every blob it produces decodes.
 *
 * <p><b>Not thread-safe.</b> Use one builder per thread or guard it externally; {@link #reset()} keeps
 * the buffer so a builder can be reused for the next segment.
 */
public final class SegmentBuilder {

    private static final int DEFAULT_INITIAL_CAPACITY = 4096;
    /** Spare raw buffers kept for {@link #reusing}: at most this many, each at most {@link #MAX_SPARE_BYTES}. */
    private static final int MAX_SPARES = 8;
    private static final int MAX_SPARE_BYTES = 4 << 20;
    private static final IdlePool<byte[]> SPARES = new IdlePool<>(MAX_SPARES);

    private byte[] buf;
    private int size;
    private int count;

    public SegmentBuilder() {
        this(DEFAULT_INITIAL_CAPACITY);
    }

    /** @param initialCapacity initial raw buffer size in bytes (a hint; the buffer grows as needed) */
    public SegmentBuilder(int initialCapacity) {
        if (initialCapacity < 0) {
            throw new IllegalArgumentException("initialCapacity < 0: " + initialCapacity);
        }
        this.buf = new byte[initialCapacity];
    }

    private SegmentBuilder(byte[] buf) {
        this.buf = buf;
    }

    /**
     * A builder for one segment whose raw buffer may be a spare one that {@link #compressAndRelease} gave back: the
     * push path packs a segment of up to megabytes per commit, and a new buffer each time was a fifth of what the
     * broker allocated under a Kafka load. A spare is not cleared: the builder reads only the bytes its frames wrote.
     */
    public static SegmentBuilder reusing(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity < 0: " + capacity);
        }
        byte[] spare = SPARES.take();
        if (spare != null && spare.length >= capacity) {
            return new SegmentBuilder(spare);
        }
        return new SegmentBuilder(new byte[capacity]);
    }

    /**
     * Appends a frame.
     *
     * @return the index of the frame within this segment
     * @throws SegmentFormatException {@link Kind#TOO_LARGE} if the segment would exceed
     *     {@link SegmentCodec#MAX_RAW_SEGMENT_BYTES}; the builder is then unchanged
     */
    public int add(Frame frame) {
        Objects.requireNonNull(frame, "frame");
        if (frame.isHole()) {
            return addHole();
        }
        // Frame's constructor already validated both strings, so encodedLength cannot throw here.
        int txnLen = Utf8.encodedLength(frame.transactionId());
        int psubLen = frame.producerSub() == null ? -1 : Utf8.encodedLength(frame.producerSub());
        byte[] payload = frame.payload();
        byte[] key = frame.key();
        int p = begin(frame.messageId(), frame.traceId(), frame.spanId(), frame.traceFlags(), txnLen, psubLen,
                key == null ? -1 : key.length, FrameFormat.flags(frame.traceId() != null, frame.spanId(),
                        psubLen >= 0, frame.encrypted(), frame.kafkaRecord(), key != null),
                payload.length);
        p = Utf8.encode(frame.transactionId(), buf, p);
        if (psubLen >= 0) {
            FrameFormat.putU16(buf, p, psubLen);
            p = Utf8.encode(frame.producerSub(), buf, p + 2);
        }
        return finish(p, key, payload, 0, payload.length);
    }

    /**
     * Appends a frame from already-encoded parts, copying the payload slice once and nothing else.
     *
     * @param messageId             required
     * @param traceId               optional (null: flag 1 clear)
     * @param txnUtf8               required, well-formed UTF-8, at most {@value Frame#MAX_STRING_BYTES} bytes
     * @param producerSubUtf8OrNull optional (null: flag 2 clear), same rules as {@code txnUtf8}
     * @param encrypted             sets flag 4
     * @param payload               the array holding the payload
     * @param payloadOff            start of the payload in {@code payload}
     * @param payloadLen            payload length, may be 0
     * @return the index of the frame within this segment
     * @throws IllegalArgumentException for a missing id, an over-long or malformed string, or a bad slice
     * @throws SegmentFormatException {@link Kind#TOO_LARGE} if the segment would grow too large
     */
    public int add(UUID messageId, UUID traceId, byte[] txnUtf8, byte[] producerSubUtf8OrNull, boolean encrypted,
            byte[] payload, int payloadOff, int payloadLen) {
        return add(messageId, traceId, txnUtf8, producerSubUtf8OrNull, encrypted, false, payload, payloadOff,
                payloadLen);
    }

    /** {@link #add(UUID, UUID, byte[], byte[], boolean, byte[], int, int)}; {@code kafkaRecord} sets flag 8. */
    public int add(UUID messageId, UUID traceId, byte[] txnUtf8, byte[] producerSubUtf8OrNull, boolean encrypted,
            boolean kafkaRecord, byte[] payload, int payloadOff, int payloadLen) {
        return add(messageId, traceId, 0, (byte) 0, txnUtf8, producerSubUtf8OrNull, encrypted, kafkaRecord, payload,
                payloadOff, payloadLen);
    }

    /**
     * {@link #add(UUID, UUID, byte[], byte[], boolean, boolean, byte[], int, int)} with the producer's span:
     * a non-zero {@code spanId} (which needs a {@code traceId}) sets flag 16.
     */
    public int add(UUID messageId, UUID traceId, long spanId, byte traceFlags, byte[] txnUtf8,
            byte[] producerSubUtf8OrNull, boolean encrypted, boolean kafkaRecord, byte[] payload, int payloadOff,
            int payloadLen) {
        return add(messageId, traceId, spanId, traceFlags, txnUtf8, producerSubUtf8OrNull, null, encrypted,
                kafkaRecord, payload, payloadOff, payloadLen);
    }

    /**
     * {@link #add(UUID, UUID, long, byte, byte[], byte[], boolean, boolean, byte[], int, int)} with the message's
     * key: a non-null {@code keyOrNull} (at most 65,535 bytes, never with {@code kafkaRecord}) sets flag 32.
     */
    public int add(UUID messageId, UUID traceId, long spanId, byte traceFlags, byte[] txnUtf8,
            byte[] producerSubUtf8OrNull, byte[] keyOrNull, boolean encrypted, boolean kafkaRecord, byte[] payload,
            int payloadOff, int payloadLen) {
        if (spanId != 0 && traceId == null) {
            throw new IllegalArgumentException("a span id needs a trace id");
        }
        if (keyOrNull != null && (kafkaRecord || keyOrNull.length > Frame.MAX_STRING_BYTES)) {
            throw new IllegalArgumentException(kafkaRecord ? "a Kafka record (flag 8) keeps its key in its payload"
                    : "key is " + keyOrNull.length + " bytes, more than " + Frame.MAX_STRING_BYTES);
        }
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(txnUtf8, "txnUtf8");
        Objects.requireNonNull(payload, "payload");
        Objects.checkFromIndexSize(payloadOff, payloadLen, payload.length);
        checkUtf8("txnUtf8", txnUtf8);
        if (producerSubUtf8OrNull != null) {
            checkUtf8("producerSubUtf8OrNull", producerSubUtf8OrNull);
        }
        int psubLen = producerSubUtf8OrNull == null ? -1 : producerSubUtf8OrNull.length;
        int p = begin(messageId, traceId, spanId, traceFlags, txnUtf8.length, psubLen,
                keyOrNull == null ? -1 : keyOrNull.length,
                FrameFormat.flags(traceId != null, spanId, psubLen >= 0, encrypted, kafkaRecord, keyOrNull != null),
                payloadLen);
        System.arraycopy(txnUtf8, 0, buf, p, txnUtf8.length);
        p += txnUtf8.length;
        if (psubLen >= 0) {
            FrameFormat.putU16(buf, p, psubLen);
            System.arraycopy(producerSubUtf8OrNull, 0, buf, p + 2, psubLen);
            p += 2 + psubLen;
        }
        return finish(p, keyOrNull, payload, payloadOff, payloadLen);
    }

    /**
     * Appends {@link Frame#HOLE}: the 4-byte empty-body frame standing for a record compaction removed.
     *
     * @return the index of the hole within this segment
     */
    public int addHole() {
        long total = (long) size + FrameFormat.LENGTH_PREFIX;
        if (total > SegmentCodec.MAX_RAW_SEGMENT_BYTES) {
            throw new SegmentFormatException(Kind.TOO_LARGE, "a hole would take the segment past "
                    + SegmentCodec.MAX_RAW_SEGMENT_BYTES + " raw bytes");
        }
        ensureCapacity((int) total);
        FrameFormat.putU32(buf, size, 0);
        size = (int) total;
        return count++;
    }

    /** Reserves room for the frame and writes everything up to and including txn_len; returns the write position. */
    private int begin(UUID messageId, UUID traceId, long spanId, byte traceFlags, int txnLen, int psubLen,
            int keyLen, int flags, int payloadLen) {
        long body = FrameFormat.bodyLength(FrameFormat.traceBytes(traceId != null, spanId), txnLen, psubLen, keyLen,
                payloadLen);
        long total = (long) size + FrameFormat.LENGTH_PREFIX + body;
        if (total > SegmentCodec.MAX_RAW_SEGMENT_BYTES) {
            throw new SegmentFormatException(Kind.TOO_LARGE, "adding a " + body + "-byte frame to " + size
                    + " raw bytes would exceed " + SegmentCodec.MAX_RAW_SEGMENT_BYTES);
        }
        ensureCapacity((int) total);
        int p = size;
        FrameFormat.putU32(buf, p, body);
        p += FrameFormat.LENGTH_PREFIX;
        buf[p++] = (byte) flags;
        FrameFormat.putUuid(buf, p, messageId);
        p += FrameFormat.UUID_BYTES;
        if (traceId != null) {
            FrameFormat.putUuid(buf, p, traceId);
            p += FrameFormat.UUID_BYTES;
            if (spanId != 0) {
                FrameFormat.putLongBE(buf, p, spanId);
                buf[p + 8] = traceFlags;
                p += FrameFormat.SPAN_BYTES;
            }
        }
        FrameFormat.putU16(buf, p, txnLen);
        return p + 2;
    }

    /** Writes the key (when there is one) and the payload after the producer sub, and counts the frame. */
    private int finish(int p, byte[] key, byte[] payload, int payloadOff, int payloadLen) {
        if (key != null) {
            FrameFormat.putU16(buf, p, key.length);
            System.arraycopy(key, 0, buf, p + 2, key.length);
            p += 2 + key.length;
        }
        System.arraycopy(payload, payloadOff, buf, p, payloadLen);
        size = p + payloadLen;
        return count++;
    }

    private void ensureCapacity(int needed) {
        if (needed > buf.length) {
            // Doubling keeps appends amortised O(1); the cap keeps the array within the segment limit.
            long grown = Math.max((long) buf.length * 2, needed);
            buf = Arrays.copyOf(buf, (int) Math.min(grown, SegmentCodec.MAX_RAW_SEGMENT_BYTES));
        }
    }

    private static void checkUtf8(String field, byte[] s) {
        if (s.length > Frame.MAX_STRING_BYTES) {
            throw new IllegalArgumentException(field + " is " + s.length + " bytes, more than " + Frame.MAX_STRING_BYTES);
        }
        if (!Utf8.isWellFormed(s, 0, s.length)) {
            throw new IllegalArgumentException(field + " is not well-formed UTF-8");
        }
    }

    /** Number of frames added since construction or the last {@link #reset()}. */
    public int frameCount() {
        return count;
    }

    /** Uncompressed size of the frames added so far, in bytes. */
    public int rawSize() {
        return size;
    }

    /** True when no frame has been added since construction or the last reset. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** A copy of the raw (uncompressed) frame bytes, mainly for tests and diagnostics. */
    public byte[] toRawBytes() {
        return Arrays.copyOf(buf, size);
    }

    /** {@link #compress(int)} at {@link SegmentCodec#DEFAULT_LEVEL}. */
    public byte[] compress() {
        return compress(SegmentCodec.DEFAULT_LEVEL);
    }

    /**
     * Compresses all frames added so far into one zstd frame (content size and checksum included).
     * Does not reset the builder.
     *
     * @param level zstd level, between {@code Zstd.minCompressionLevel()} and {@code Zstd.maxCompressionLevel()}
     */
    public byte[] compress(int level) {
        return SegmentCodec.compressRaw(buf, size, level);
    }

    /**
     * {@link #compress(int)}, then gives the raw buffer back for the next {@link #reusing} builder; this builder
     * cannot be used afterwards.
     */
    public byte[] compressAndRelease(int level) {
        byte[] raw = buf;
        try {
            return compress(level);
        } finally {
            buf = null;
            size = 0;
            count = 0;
            if (raw.length <= MAX_SPARE_BYTES) {
                SPARES.give(raw);
            }
        }
    }

    /** Forgets all frames but keeps the buffer for reuse. */
    public void reset() {
        size = 0;
        count = 0;
    }
}
