package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.github.luben.zstd.Zstd;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Pooled, reused compression contexts must produce exactly the one-shot blob, across sizes and levels. */
class CompressorPoolTest {
    @Test
    void reusedContextsMatchOneShotCompression() {
        Random rnd = new Random(7);
        int[] levels = {3, 1, 3, 9, -1, 3};
        for (int round = 0; round < 300; round++) {
            int len = round % 50 == 0 ? 3_000_000 + rnd.nextInt(100_000) : rnd.nextInt(40_000);
            byte[] raw = new byte[len + 10];
            for (int i = 0; i < raw.length; i++) {
                raw[i] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt() : 'a' + (i % 13));
            }
            int level = levels[round % levels.length];
            byte[] expected = new byte[(int) Zstd.compressBound(len)];
            long n = Zstd.compressByteArray(expected, 0, expected.length, raw, 0, len, level, true);
            assertArrayEquals(Arrays.copyOf(expected, (int) n), SegmentCodec.compressRaw(raw, len, level));
        }
    }
}
