package io.queen.compaction;

import io.queen.envelope.KafkaRecordFormat;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.segment.SegmentBuilder;
import io.queen.segment.SegmentCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One compaction pass over the sealed segments of one partition, as pure computation: which records go, and the
 * segments that replace the ones holding them.
 *
 * <p>A record goes when a later record in the pass has the same key, or when it is a tombstone (null value) at or
 * below the partition's delete horizon: an offset an earlier pass compacted at least {@code delete.retention.ms} ago
 * (as Apache Kafka's cleaner stamps a tombstone when it first keeps it, so a reader that saw a key's older record
 * before that pass still meets the tombstone within {@code delete.retention.ms}). A Kafka record's key is inside its payload (frame
 * flag 8), an HTTP message's is the frame's own (flag 32), whose tombstone is a JSON {@code null} payload; the two
 * share one key space. A record without a key (an HTTP message pushed without one, a Kafka record produced without
 * one) never goes. A removed record becomes {@link Frame#HOLE}, so every kept record keeps
 * its offset ({@code base + index}). Consecutive segments are merged into one replacement of at most
 * {@code maxSegmentBytes} raw bytes, never across {@code txnsStart} (a replacement's hash sidecar is the
 * concatenation of its segments' rows, which exist on one side of that watermark only); a run is rewritten only when
 * it removes a record or merges segments, so a pass over an already compact log writes nothing.
 *
 * <p>Reads each blob twice (keys, then the rewrite) and keeps only the keys between, so its memory is the key map
 * and the blobs as stored. Not thread-safe; one instance per pass.
 */
public final class CompactionPass {

    /** A stored segment as the pass reads it. */
    public record Segment(long baseOffset, long endOffset, byte[] blob) {
        int frames() {
            return (int) (endOffset - baseOffset + 1);
        }
    }

    /**
     * One segment replacing {@code rows} consecutive stored segments that cover exactly {@code [baseOffset,
     * endOffset]}; {@code bytesRemoved} is their blob bytes minus this one's.
     */
    public record Rewrite(long baseOffset, long endOffset, int rows, byte[] blob, long recordsRemoved,
            long bytesRemoved) {
    }

    /**
     * What the pass decided and wrote; {@code recordsKept} are the records (holes not counted) the segments it read
     * hold once it is written, what the partition's dirty ratio weighs its dirty section against.
     */
    public record Result(List<Rewrite> rewrites, long recordsRead, long recordsRemoved, long bytesRemoved,
            long recordsKept) {
    }

    private final Function<Frame, byte[]> plaintext;
    private final Function<Frame, byte[]> key;
    private final long maxSegmentBytes;
    private final int zstdLevel;

    /**
     * @param plaintext       a frame's payload decrypted (the Kafka key of an encrypted record is inside it)
     * @param key             a frame's own key (flag 32) decrypted, null without one
     * @param maxSegmentBytes raw bytes of one merged replacement at most (a single segment is never split)
     * @param zstdLevel       level of the blobs written
     */
    public CompactionPass(Function<Frame, byte[]> plaintext, Function<Frame, byte[]> key, long maxSegmentBytes,
            int zstdLevel) {
        this.plaintext = plaintext;
        this.key = key;
        this.maxSegmentBytes = maxSegmentBytes;
        this.zstdLevel = zstdLevel;
    }

    /** Per segment: which frames go, and the raw size of what stays. */
    private record Plan(boolean[] removed, int removedCount, long keptRawBytes) {
    }

    /**
     * Compacts {@code segments} (consecutive, ascending, the head excluded by the caller).
     *
     * @param txnsStart         the partition's hash-sidecar watermark
     * @param tombstoneHorizon  tombstones at or below this offset go (-1: none)
     */
    public Result run(List<Segment> segments, long txnsStart, long tombstoneHorizon) {
        // pass 1: the last offset of every key, and what each frame is
        Map<ByteBuffer, Long> latest = new HashMap<>();
        List<ByteBuffer[]> keys = new ArrayList<>(segments.size());
        List<boolean[]> tombstones = new ArrayList<>(segments.size());
        List<long[]> sizes = new ArrayList<>(segments.size());
        long read = 0;
        long live = 0;
        for (Segment s : segments) {
            List<Frame> frames = SegmentCodec.decode(s.blob());
            if (frames.size() != s.frames()) {
                throw new IllegalStateException("segment [" + s.baseOffset() + ", " + s.endOffset() + "] holds "
                        + frames.size() + " frames");
            }
            ByteBuffer[] k = new ByteBuffer[frames.size()];
            boolean[] t = new boolean[frames.size()];
            long[] size = new long[frames.size()];
            for (int i = 0; i < k.length; i++) {
                Frame f = frames.get(i);
                size[i] = f.encodedSize();
                live += f.isHole() ? 0 : 1;
                if (f.isHole()) {
                    continue;
                }
                read++;
                if (f.kafkaRecord()) {
                    RecordEnvelope.Kafka r = KafkaRecordFormat.decode(plaintext.apply(f));
                    if (r == null || r.key() == null) {
                        continue;
                    }
                    k[i] = ByteBuffer.wrap(r.key());
                    t[i] = r.value() == null;
                } else if (f.key() != null) {
                    k[i] = ByteBuffer.wrap(key.apply(f));
                    t[i] = RecordEnvelope.isTombstone(f, plaintext.apply(f));
                } else {
                    continue;
                }
                latest.put(k[i], s.baseOffset() + i);
            }
            keys.add(k);
            tombstones.add(t);
            sizes.add(size);
        }
        List<Plan> plans = new ArrayList<>(segments.size());
        for (int j = 0; j < segments.size(); j++) {
            Segment s = segments.get(j);
            ByteBuffer[] k = keys.get(j);
            boolean[] removed = new boolean[k.length];
            int count = 0;
            long kept = 0;
            for (int i = 0; i < k.length; i++) {
                removed[i] = k[i] != null
                        && (latest.get(k[i]) > s.baseOffset() + i || (tombstones.get(j)[i] && s.baseOffset() + i <= tombstoneHorizon));
                if (removed[i]) {
                    count++;
                    kept += Frame.HOLE.encodedSize();
                } else {
                    kept += sizes.get(j)[i];
                }
            }
            plans.add(new Plan(removed, count, kept));
        }
        // pass 2: runs of consecutive segments, each rewritten into one when that removes or merges something
        List<Rewrite> out = new ArrayList<>();
        long records = 0;
        long bytes = 0;
        int from = 0;
        while (from < segments.size()) {
            int to = from + 1;
            long raw = plans.get(from).keptRawBytes();
            while (to < segments.size()
                    && raw + plans.get(to).keptRawBytes() <= maxSegmentBytes
                    && (segments.get(to).baseOffset() >= txnsStart) == (segments.get(from).baseOffset() >= txnsStart)) {
                raw += plans.get(to).keptRawBytes();
                to++;
            }
            int removed = 0;
            for (int j = from; j < to; j++) {
                removed += plans.get(j).removedCount();
            }
            if (removed > 0 || to - from > 1) {
                Rewrite r = rewrite(segments.subList(from, to), plans.subList(from, to), raw, removed);
                out.add(r);
                records += r.recordsRemoved();
                bytes += r.bytesRemoved();
            }
            from = to;
        }
        return new Result(out, read, records, bytes, live - records);
    }

    private Rewrite rewrite(List<Segment> run, List<Plan> plans, long raw, int removed) {
        SegmentBuilder b = new SegmentBuilder((int) Math.min(raw, SegmentCodec.MAX_RAW_SEGMENT_BYTES));
        long before = 0;
        for (int j = 0; j < run.size(); j++) {
            Segment s = run.get(j);
            before += s.blob().length;
            boolean[] gone = plans.get(j).removed();
            List<Frame> frames = SegmentCodec.decode(s.blob());
            for (int i = 0; i < frames.size(); i++) {
                if (gone[i]) {
                    b.addHole();
                } else {
                    b.add(frames.get(i));
                }
            }
        }
        byte[] blob = b.compress(zstdLevel);
        return new Rewrite(run.get(0).baseOffset(), run.get(run.size() - 1).endOffset(), run.size(), blob, removed,
                before - blob.length);
    }
}
