package io.queen.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.queen.envelope.KafkaRecordFormat;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.header.Header;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

/** {@link CompactionPass} alone: which frames become holes, how runs are merged and split, and what it costs. */
class CompactionPassTest {
    private static final Logger LOG = Logger.getLogger(CompactionPassTest.class);

    private static Frame record(String key, String value) {
        byte[] payload = KafkaRecordFormat.encode(0, key == null ? null : ByteBuffer.wrap(bytes(key)),
                value == null ? null : ByteBuffer.wrap(bytes(value)), new Header[0]);
        return new Frame(UUID.randomUUID(), null, "", null, false, payload, true);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static CompactionPass.Segment segment(long base, Frame... frames) {
        return new CompactionPass.Segment(base, base + frames.length - 1, SegmentCodec.encode(List.of(frames)));
    }

    private static CompactionPass pass(long maxBytes) {
        return new CompactionPass(Frame::payload, Frame::key, maxBytes, 3);
    }

    /** "k=v" per frame of the rewrite's blob, "-" for a hole. */
    private static List<String> frames(CompactionPass.Rewrite r) {
        List<String> out = new ArrayList<>();
        for (Frame f : SegmentCodec.decode(r.blob())) {
            if (f.isHole()) {
                out.add("-");
            } else if (!f.kafkaRecord()) {
                out.add(new String(f.payload(), StandardCharsets.UTF_8));
            } else {
                var k = KafkaRecordFormat.decode(f.payload());
                out.add((k.key() == null ? "null" : new String(k.key(), StandardCharsets.UTF_8)) + "="
                        + (k.value() == null ? "null" : new String(k.value(), StandardCharsets.UTF_8)));
            }
        }
        return out;
    }

    @Test
    void keepsTheLatestOfEachKeyAndEveryRecordWithoutOne() {
        List<CompactionPass.Segment> segs = List.of(
                segment(10, record("a", "1"), record("b", "1"), record(null, "x")),
                segment(13, Frame.of(UUID.randomUUID(), "t", bytes("{\"http\":1}")), record("a", "2")),
                segment(15, record("b", null), record("c", "1")));
        CompactionPass.Result r = pass(1 << 20).run(segs, 0, -1);
        assertEquals(1, r.rewrites().size());
        CompactionPass.Rewrite w = r.rewrites().get(0);
        assertEquals(List.of(10L, 16L, 3L), List.of(w.baseOffset(), w.endOffset(), (long) w.rows()));
        // the tombstone of b stays: no delete horizon covers it
        assertEquals(List.of("-", "-", "null=x", "{\"http\":1}", "a=2", "b=null", "c=1"), frames(w));
        assertEquals(2, r.recordsRemoved());
        // at or below the horizon, the tombstone goes too; just above it, it stays
        assertEquals(frames(w), frames(pass(1 << 20).run(segs, 0, 14).rewrites().get(0)));
        CompactionPass.Result later = pass(1 << 20).run(segs, 0, 15);
        assertEquals(List.of("-", "-", "null=x", "{\"http\":1}", "a=2", "-", "c=1"), frames(later.rewrites().get(0)));
        // a compact log is left as it is
        CompactionPass.Segment compact = new CompactionPass.Segment(10, 16, w.blob());
        assertEquals(List.of(), pass(1 << 20).run(List.of(compact), 0, -1).rewrites());
    }

    @Test
    void runsSplitAtTheSidecarWatermarkAndTheSizeCap() {
        List<CompactionPass.Segment> segs = List.of(segment(0, record("a", "1")), segment(1, record("a", "2")),
                segment(2, record("a", "3")), segment(3, record("b", "1")));
        List<CompactionPass.Rewrite> atTwo = pass(1 << 20).run(segs, 2, -1).rewrites();
        assertEquals(List.of("0-1", "2-3"), atTwo.stream().map(w -> w.baseOffset() + "-" + w.endOffset()).toList());
        assertEquals(List.of("0-3"), pass(1 << 20).run(segs, 0, -1).rewrites().stream()
                .map(w -> w.baseOffset() + "-" + w.endOffset()).toList());
        // 60 raw bytes hold two holes (4 bytes each) and one record (45): the last segment stays as it is
        assertEquals(List.of("0-2"), pass(60).run(segs, 0, -1).rewrites().stream()
                .map(w -> w.baseOffset() + "-" + w.endOffset()).toList());
    }

    @Test
    void throughputOfAPassOverAHundredThousandRecords() {
        List<CompactionPass.Segment> segs = new ArrayList<>();
        long base = 0;
        for (int seg = 0; seg < 100; seg++) {
            Frame[] frames = new Frame[1000];
            for (int i = 0; i < frames.length; i++) {
                frames[i] = record("key-" + (i % 1000), "value-" + i + "-" + seg + "-" + "x".repeat(40));
            }
            segs.add(segment(base, frames));
            base += frames.length;
        }
        var mx = ManagementFactory.getThreadMXBean();
        long cpu = mx.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        CompactionPass.Result r = pass(8 << 20).run(segs, 0, -1);
        double cpuS = (mx.getCurrentThreadCpuTime() - cpu) / 1e9;
        double wallS = (System.nanoTime() - wall) / 1e9;
        LOG.infof("compaction pass: %d records read, %d removed, %d bytes freed: %.3f s CPU, %.3f s wall, %.0f records/s",
                r.recordsRead(), r.recordsRemoved(), r.bytesRemoved(), cpuS, wallS, r.recordsRead() / wallS);
        assertEquals(99_000, r.recordsRemoved());
    }
}
