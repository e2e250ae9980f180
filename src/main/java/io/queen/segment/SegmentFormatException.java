package io.queen.segment;

import java.util.Objects;

/**
 * Raised for any segment or frame that does not follow the format described in {@link io.queen.segment},
 * and for requests that address frames a segment does not have.
 *
 * <p>Invariant: {@link #kind()} is never null. Decoders translate every low-level failure (zstd errors,
 * bounds problems) into this type, so callers never see {@code ArrayIndexOutOfBoundsException},
 * {@code BufferUnderflowException} or zstd-jni exceptions for bad input. Immutable, hence thread-safe.
 */
public final class SegmentFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What was wrong with the input. */
    public enum Kind {
        /** The stream ended inside a length prefix, or a body is too short for its fixed fields. */
        TRUNCATED_FRAME,
        /** A length (body_len, txn_len or psub_len) points past the end of the data that contains it. */
        LENGTH_PAST_END,
        /** A frame's flags byte has bits outside the known set. */
        BAD_FLAGS,
        /** The blob is not one valid zstd frame (bad magic, corrupt data, checksum mismatch, trailing bytes). */
        BAD_COMPRESSION,
        /** A requested frame index lies beyond the segment's frame count. */
        INDEX_OUT_OF_RANGE,
        /** The segment's decompressed size exceeds the allowed maximum. */
        TOO_LARGE,
        /** A transaction id or producer sub is not well-formed UTF-8. */
        BAD_UTF8
    }

    private final Kind kind;

    public SegmentFormatException(Kind kind, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public SegmentFormatException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public String getMessage() {
        return kind + ": " + super.getMessage();
    }
}
