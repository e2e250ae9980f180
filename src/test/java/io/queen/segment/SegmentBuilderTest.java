package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SegmentBuilderTest {

    private static final UUID ID = new UUID(10, 20);

    @Test
    void countsSizesAndIndexes() {
        SegmentBuilder b = new SegmentBuilder(0); // forces growth from nothing
        assertTrue(b.isEmpty());
        int expectedSize = 0;
        for (int i = 0; i < 1000; i++) {
            Frame f = TestFrames.simple(i);
            assertEquals(i, b.add(f));
            expectedSize += (int) f.encodedSize();
            assertEquals(i + 1, b.frameCount());
            assertEquals(expectedSize, b.rawSize());
        }
        assertEquals(1000, SegmentCodec.decode(b.compress()).size());
    }

    @Test
    void compressDoesNotResetAndResetReusesTheBuilder() {
        SegmentBuilder b = new SegmentBuilder();
        b.add(TestFrames.simple(1));
        byte[] first = b.compress(3);
        assertEquals(1, b.frameCount());
        b.add(TestFrames.simple(2));
        assertEquals(List.of(TestFrames.simple(1), TestFrames.simple(2)), SegmentCodec.decode(b.compress(3)));

        b.reset();
        assertEquals(0, b.frameCount());
        assertEquals(0, b.rawSize());
        assertEquals(List.of(), SegmentCodec.decode(b.compress(3)));
        b.add(TestFrames.simple(1));
        assertArrayEquals(SegmentCodec.decompress(first), b.toRawBytes());
    }

    @Test
    void aReusedBufferHoldsOnlyTheNewSegmentsFramesAndAReleasedBuilderIsDone() {
        // a spare buffer keeps the bytes of the segment before: the next one must not read any of them
        SegmentBuilder big = SegmentBuilder.reusing(64);
        for (int i = 0; i < 500; i++) {
            big.add(TestFrames.simple(i));
        }
        big.compressAndRelease(3);
        assertThrows(NullPointerException.class, () -> big.add(TestFrames.simple(1)), "released: not usable");
        for (int round = 0; round < 20; round++) {   // more rounds than spares: some buffers are new
            SegmentBuilder reused = SegmentBuilder.reusing(16);
            SegmentBuilder fresh = new SegmentBuilder(16);
            for (int i = 0; i <= round; i++) {
                reused.add(TestFrames.simple(1000 + i));
                fresh.add(TestFrames.simple(1000 + i));
            }
            byte[] blob = reused.compressAndRelease(3);
            assertArrayEquals(fresh.compress(3), blob);
            assertEquals(round + 1, SegmentCodec.decode(blob).size());
        }
        assertThrows(IllegalArgumentException.class, () -> SegmentBuilder.reusing(-1));
    }

    @Test
    void byteOverloadCopiesOnlyTheGivenPayloadSlice() {
        byte[] buffer = "xx{\"a\":1}yy".getBytes(StandardCharsets.UTF_8);
        SegmentBuilder b = new SegmentBuilder();
        b.add(ID, null, "t".getBytes(StandardCharsets.UTF_8), null, true, buffer, 2, 7);
        b.add(ID, ID, new byte[0], "ключ".getBytes(StandardCharsets.UTF_8), false, buffer, 0, 0);
        assertEquals(List.of(new Frame(ID, null, "t", null, true, "{\"a\":1}".getBytes(StandardCharsets.UTF_8)),
                new Frame(ID, ID, "", "ключ", false, new byte[0])), SegmentCodec.decode(b.compress()));
    }

    @Test
    void byteOverloadValidatesItsArguments() {
        SegmentBuilder b = new SegmentBuilder();
        byte[] p = new byte[4];
        byte[] t = {'t'};
        assertThrows(NullPointerException.class, () -> b.add(null, null, t, null, false, p, 0, 4));
        assertThrows(NullPointerException.class, () -> b.add(ID, null, null, null, false, p, 0, 4));
        assertThrows(NullPointerException.class, () -> b.add(ID, null, t, null, false, null, 0, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> b.add(ID, null, t, null, false, p, 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> b.add(ID, null, t, null, false, p, -1, 1));
        b.add(ID, null, new byte[65535], null, false, p, 0, 0);
        assertThrows(IllegalArgumentException.class, () -> b.add(ID, null, new byte[65536], null, false, p, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> b.add(ID, null, t, new byte[65536], false, p, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> b.add(ID, null, new byte[] {(byte) 0xFF}, null, false, p, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> b.add(ID, null, t, new byte[] {(byte) 0xC0, (byte) 0x80}, false, p, 0, 0));
        // Rejected calls left nothing behind.
        assertEquals(1, b.frameCount());
        assertEquals(1, SegmentCodec.decode(b.compress()).size());
    }

    @Test
    void badLevelIsRejected() {
        SegmentBuilder b = new SegmentBuilder();
        assertThrows(IllegalArgumentException.class, () -> b.compress(100));
        assertThrows(IllegalArgumentException.class, () -> new SegmentBuilder(-1));
    }
}
