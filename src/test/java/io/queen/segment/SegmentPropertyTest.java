package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded random segments: a failure message names the iteration, so it can be replayed. */
class SegmentPropertyTest {

    private static final long SEED = 0x5EED_2025L;

    @Test
    void randomSegmentsRoundTripExactly() {
        Random r = new Random(SEED);
        SegmentBuilder viaFrames = new SegmentBuilder(16);
        SegmentBuilder viaBytes = new SegmentBuilder(16);
        for (int iter = 0; iter < 500; iter++) {
            List<Frame> frames = TestFrames.randomList(r, 1 + r.nextInt(200), 4096);
            int level = 1 + r.nextInt(5);
            byte[] blob = SegmentCodec.encode(frames, level);
            String ctx = "iteration " + iter;
            assertEquals(frames, SegmentCodec.decode(blob), ctx);
            assertEquals(frames.size(), SegmentCodec.countFrames(blob), ctx);

            int start = r.nextInt(frames.size() + 1);
            int take = r.nextInt(frames.size() - start + 1);
            assertEquals(frames.subList(start, start + take), SegmentCodec.decode(blob, start, take), ctx);

            // Both builder entry points produce identical bytes.
            viaFrames.reset();
            viaBytes.reset();
            for (Frame f : frames) {
                viaFrames.add(f);
                byte[] padded = new byte[f.payload().length + 3];
                System.arraycopy(f.payload(), 0, padded, 2, f.payload().length);
                viaBytes.add(f.messageId(), f.traceId(), f.transactionId().getBytes(StandardCharsets.UTF_8),
                        f.producerSub() == null ? null : f.producerSub().getBytes(StandardCharsets.UTF_8),
                        f.encrypted(), f.kafkaRecord(), padded, 2, f.payload().length);
            }
            byte[] raw = viaFrames.toRawBytes();
            assertArrayEquals(raw, viaBytes.toRawBytes(), ctx);
            assertArrayEquals(raw, SegmentCodec.decompress(blob), ctx);
            assertEquals(frames, SegmentCodec.parseFrames(raw), ctx);
        }
    }
}
