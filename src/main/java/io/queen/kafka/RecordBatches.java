package io.queen.kafka;

import io.queen.browse.ReadStore;
import io.queen.crypto.PayloadCipher;
import io.queen.envelope.KafkaRecordFormat;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.segment.FrameCursor;
import io.queen.segment.SegmentCodec;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongPredicate;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * Stored segments as Kafka sees them: the uncompressed v2 record batch a Fetch or a ShareFetch answers, and the
 * snapshot of one record a share group files as a dead letter. Stateless, thread-safe.
 */
@ApplicationScoped
public class RecordBatches {
    /** What the dead-letter table keeps of a record: its ids, the payload as HTTP shows it, its commit time. */
    public record Snapshot(UUID messageId, String transactionId, String payload, UUID traceId, String producerSub,
            OffsetDateTime committedAt) {
    }

    private final PayloadCipher cipher;
    private final ReadStore reads;

    RecordBatches(PayloadCipher cipher, ReadStore reads) {
        this.cipher = cipher;
        this.reads = reads;
    }

    /** The segments of a partition from {@code from} on, holding at least {@code count} records where there are. */
    private List<ReadStore.Segment> segments(UUID tenant, String queue, String partition, long from, int count)
            throws SQLException {
        List<ReadStore.Segment> out = new ArrayList<>();
        for (ReadStore.FetchRow r : reads.fetch(tenant, new String[] {queue}, new String[] {partition},
                new Long[] {from}, new Integer[] {Integer.MAX_VALUE}, Long.MAX_VALUE, count)) {
            if (r.segment() != null) {
                out.add(r.segment());
            }
        }
        return out;
    }

    /** One batch of exactly the records at {@code offsets} (ascending; no byte bound: they are acquired). */
    public MemoryRecords records(UUID tenant, String queue, String partition, List<Long> offsets)
            throws SQLException {
        long first = offsets.get(0);
        long last = offsets.get(offsets.size() - 1);
        java.util.Set<Long> wanted = new java.util.HashSet<>(offsets);
        return build(segments(tenant, queue, partition, first, (int) (last - first + 1)), first, Integer.MAX_VALUE,
                Long.MAX_VALUE, wanted::contains);
    }

    /** The dead-letter snapshots of the records at {@code offsets} (ascending) still stored, by offset. */
    public Map<Long, Snapshot> snapshots(UUID tenant, String queue, String partition, List<Long> offsets)
            throws SQLException {
        long first = offsets.get(0);
        long last = offsets.get(offsets.size() - 1);
        java.util.Set<Long> wanted = new java.util.HashSet<>(offsets);
        Map<Long, Snapshot> out = new java.util.HashMap<>();
        for (ReadStore.Segment s : segments(tenant, queue, partition, first, (int) (last - first + 1))) {
            long from = Math.max(first, s.baseOffset());
            long to = Math.min(last, s.endOffset());
            if (from > to) {
                continue;
            }
            List<Frame> frames = SegmentCodec.decode(s.blob(), (int) (from - s.baseOffset()), (int) (to - from + 1));
            for (int i = 0; i < frames.size(); i++) {
                Frame f = frames.get(i);
                if (!f.isHole() && wanted.contains(from + i)) {
                    out.put(from + i, new Snapshot(f.messageId(), f.transactionId(),
                            new String(cipher.deadLetterPayload(f), StandardCharsets.UTF_8), f.traceId(),
                            f.producerSub(), s.createdAt()));
                }
            }
        }
        return out;
    }

    /** A record picked for a batch: its key and value as views of the bytes they are read from. */
    private record Picked(long offset, long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers) {
    }

    /**
     * One uncompressed batch of the records from {@code from} on (only the offsets {@code include} accepts, all when
     * it is null: a batch may leave offsets out, as a compacted one does); stops before the record that would pass
     * {@code maxBytes} or {@code budget}, but always holds at least one record. The records are sized first
     * (exactly, as the batch will hold them) so the batch is written into a buffer of its final size: grown from a
     * guess, Kafka's output stream reallocates by a tenth at a time, which cost more than writing the records. A
     * record the Kafka listener stored (frame flag 8, plaintext) goes from the inflated segment into the batch
     * without a {@link Frame} or a copy of its key and value; other frames (HTTP messages, encrypted ones) are
     * decoded whole and rendered as {@link RecordEnvelope#decode} says.
     */
    public MemoryRecords build(List<ReadStore.Segment> segments, long from, int maxBytes, long budget,
            LongPredicate include) {
        long bound = Math.min(maxBytes, budget);
        List<Picked> picked = new ArrayList<>();
        long size = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
        long holes = -1;  // the last offset of the compaction holes met before the first record
        pick:
        for (ReadStore.Segment s : segments) {
            int start = (int) Math.max(0, from - s.baseOffset());
            int take = (int) (s.endOffset() - s.baseOffset() + 1) - start;
            if (take <= 0) {
                continue;
            }
            long commitMillis = s.createdAt().toInstant().toEpochMilli();
            FrameCursor frames = SegmentCodec.cursor(s.blob(), start, take);
            List<Frame> large = frames == null ? SegmentCodec.decode(s.blob(), start, take) : null;
            for (int i = 0; i < take; i++) {
                Frame f = null;
                if (frames != null) {
                    frames.next();
                } else {
                    f = large.get(i);
                }
                long offset = s.baseOffset() + start + i;
                if (include != null && !include.test(offset)) {
                    continue;
                }
                if (f != null ? f.isHole() : frames.isHole()) {
                    if (picked.isEmpty()) {
                        holes = offset;
                    }
                    continue;
                }
                Picked p = f == null && frames.plainKafkaRecord() ? stored(offset, frames)
                        : rendered(offset, f != null ? f : frames.frame(), commitMillis);
                Picked first = picked.isEmpty() ? p : picked.get(0);
                int n = DefaultRecord.sizeInBytes((int) (offset - first.offset()), p.timestamp() - first.timestamp(),
                        p.key(), p.value(), p.headers());
                if (!picked.isEmpty() && size + n > bound) {
                    break pick;
                }
                size += n;
                picked.add(p);
            }
        }
        if (picked.isEmpty()) {
            return holes < 0 ? MemoryRecords.EMPTY : emptyBatch(from, holes);
        }
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate((int) size), RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE, TimestampType.CREATE_TIME, picked.get(0).offset());
        for (Picked p : picked) {
            b.appendWithOffset(p.offset(), p.timestamp(), p.key(), p.value(), p.headers());
        }
        return b.build();
    }

    /** The record the Kafka listener stored at the cursor's frame, read in place. */
    private static Picked stored(long offset, FrameCursor frame) {
        KafkaRecordFormat.View v = KafkaRecordFormat.stored(frame.raw(), frame.payloadOffset(), frame.payloadLength());
        return new Picked(offset, v.timestamp(), v.key(), v.value(), v.headers());
    }

    /** Any other frame as a Kafka record: decrypted, and an HTTP message rendered as one. */
    private Picked rendered(long offset, Frame f, long commitMillis) {
        RecordEnvelope.Kafka k = RecordEnvelope.decode(f, cipher.plaintext(f), cipher.key(f), commitMillis);
        return new Picked(offset, k.timestamp(), wrap(k.key()), wrap(k.value()), k.headers());
    }

    /**
     * A batch holding no record that spans {@code [from, last]}: what Kafka's cleaner leaves where it removed every
     * record of a batch. A consumer moves its position past it, so a fetch that finds only compaction holes still
     * advances instead of asking again for the same offset.
     */
    static MemoryRecords emptyBatch(long from, long last) {
        ByteBuffer buf = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(buf, RecordBatch.CURRENT_MAGIC_VALUE, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, from, last, RecordBatch.NO_PARTITION_LEADER_EPOCH,
                TimestampType.CREATE_TIME, RecordBatch.NO_TIMESTAMP, false, false);
        buf.flip();
        return MemoryRecords.readableRecords(buf);
    }

    private static ByteBuffer wrap(byte[] b) {
        return b == null ? null : ByteBuffer.wrap(b);
    }
}
