/**
 * Segment storage format: many messages ("frames") packed into one blob that is compressed with zstd
 * exactly once.
 *
 * <p>A segment blob is {@code zstd(frame0 || frame1 || ...)}, one zstd frame with the raw content size
 * in its header and a content checksum. Each frame, all integers little-endian:
 *
 * <pre>
 * u32 body_len
 * body:
 *   u8      flags            1 = trace id present, 2 = producer sub present, 4 = encrypted, 8 = the payload is a
 *                            Kafka record in binary form (io.queen.envelope.KafkaRecordFormat), 16 = span context
 *                            present (only with flag 1), 32 = key present (never with flag 8); other bits must be 0
 *   u8[16]  message_id       UUID bytes in canonical (big-endian) order
 *   [u8[16] trace_id]        only when flag 1 is set
 *   [u8[8] span_id, u8 trace_flags]  only when flag 16 is set: the producer's span (W3C traceparent's parent-id
 *                            and trace-flags, span_id never all zero), so a reader gets the whole traceparent back
 *   u16     txn_len
 *   u8[txn_len] transaction_id (UTF-8)
 *   [u16 psub_len, u8[psub_len] producer_sub (UTF-8)]   only when flag 2 is set
 *   [u16 key_len, u8[key_len] key]   only when flag 32 is set: the message's key for log compaction (an HTTP push
 *                            item's UTF-8 key; with flag 4 its own encryption envelope); a Kafka record (flag 8)
 *                            keeps its key in its payload instead
 *   u8[...] payload          the rest of the body, stored exactly as received (may be empty); with flag 8 the
 *                            record's binary form, rendered as its JSON envelope for HTTP readers
 * </pre>
 *
 * <p>A frame with {@code body_len} 0 is a hole ({@link io.queen.segment.Frame#HOLE}): the place of a record that
 * compaction removed. It keeps every later frame at its index, so offset = base_offset + index holds in a compacted
 * segment as in any other, and costs 4 raw bytes (a run of them compresses to almost nothing).
 *
 * <p>The length prefix lets a reader skip frames it does not need without parsing their bodies, which is
 * what {@link io.queen.segment.SegmentCodec#decode(byte[], int, int)} relies on. Malformed input always
 * surfaces as {@link io.queen.segment.SegmentFormatException} with a {@link
 * io.queen.segment.SegmentFormatException.Kind}; no frame is ever silently dropped.
 *
 * <p>The package is pure computation: no I/O besides the in-memory zstd streams, no CDI.
 */
package io.queen.segment;
