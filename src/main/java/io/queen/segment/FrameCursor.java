package io.queen.segment;

import io.queen.segment.SegmentFormatException.Kind;

/**
 * The frames {@code [startIndex, startIndex + take)} of an inflated segment, read one at a time by position: a
 * frame's flags and the bounds of its payload in {@link #raw()}, checked as {@link SegmentCodec#decode} checks them,
 * without the message id, trace id and strings a {@link Frame} decodes and copies. A reader that wants only
 * payloads (the Kafka fetch: a stored record's binary form) pays for the bytes it uses; {@link #frame()} decodes the
 * current frame whole for the others. Made by {@link SegmentCodec#cursor}; not thread-safe.
 */
public final class FrameCursor {
    private final byte[] raw;
    private final int startIndex;
    /** -1: every frame from startIndex on, up to the end of the data. */
    private final int take;
    private int pos;
    private int next;
    private long index;
    /** The current frame's checked flags, or -1 before they were read. */
    private int flags = -1;
    private int payloadAt;

    FrameCursor(byte[] raw, int startIndex, int take) {
        this.raw = raw;
        this.startIndex = startIndex;
        this.take = take;
        for (index = 0; index < startIndex; index++) {
            if (next == raw.length) {
                throw SegmentCodec.outOfRange(startIndex, take, index);
            }
            next = SegmentCodec.nextFrame(raw, next, index);
        }
        index--;
    }

    /**
     * Moves to the next wanted frame, checking its length prefix; false once {@code take} frames were read (with
     * {@code take} -1: at the end of the data).
     *
     * @throws SegmentFormatException {@link Kind#INDEX_OUT_OF_RANGE} when the segment ends first, or another kind
     *     for a malformed length
     */
    public boolean next() {
        if (take >= 0 && index + 1 >= (long) startIndex + take) {
            return false;
        }
        if (next == raw.length) {
            if (take < 0) {
                return false;
            }
            throw SegmentCodec.outOfRange(startIndex, take, index + 1);
        }
        index++;
        pos = next;
        next = SegmentCodec.nextFrame(raw, pos, index);
        flags = -1;
        return true;
    }

    /** Whether the current frame is a hole (the place of a record compaction removed, {@link Frame#HOLE}). */
    public boolean isHole() {
        return next - pos == FrameFormat.LENGTH_PREFIX;
    }

    /** Whether the current frame's payload is a Kafka record in binary form (flag 8) stored as plaintext. */
    public boolean plainKafkaRecord() {
        return !isHole() && (readFlags() & (FrameFormat.FLAG_KAFKA_RECORD | FrameFormat.FLAG_ENCRYPTED))
                == FrameFormat.FLAG_KAFKA_RECORD;
    }

    /** The inflated segment the payload bounds point into. */
    public byte[] raw() {
        return raw;
    }

    /** Where the current frame's payload starts in {@link #raw()}; the frame's fields checked on the way. */
    public int payloadOffset() {
        readFlags();
        return payloadAt;
    }

    public int payloadLength() {
        return next - payloadOffset();
    }

    /** The current frame decoded whole, as {@link SegmentCodec#decode} returns it. */
    public Frame frame() {
        int body = pos + FrameFormat.LENGTH_PREFIX;
        return FrameFormat.parseBody(raw, body, next - body, index, pos);
    }

    /** The current frame's flags and payload offset, read and checked once (a hole has neither: its end). */
    private int readFlags() {
        if (flags < 0) {
            int body = pos + FrameFormat.LENGTH_PREFIX;
            int len = next - body;
            if (len == 0) {
                payloadAt = next;
                return 0;
            }
            flags = FrameFormat.checkedFlags(raw, body, len, index, pos);
            payloadAt = FrameFormat.payloadAt(raw, body, len, flags, index, pos);
        }
        return flags;
    }
}
