package io.queen.kafka.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Frames cut from a stream however it is split into reads, larger than their first array or not. */
class FrameCutterTest {
    /** Collects frames; refuses sizes above {@code max} and stops after {@code stopAfter} frames. */
    static final class Collected implements FrameCutter.Sink {
        final List<byte[]> frames = new ArrayList<>();
        final List<Integer> sizes = new ArrayList<>();
        int max = Integer.MAX_VALUE;
        int stopAfter = Integer.MAX_VALUE;

        @Override
        public boolean size(int size) {
            sizes.add(size);
            return size <= max;
        }

        @Override
        public boolean frame(byte[] frame) {
            frames.add(frame);
            return frames.size() < stopAfter;
        }
    }

    static byte[] stream(List<byte[]> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            out.writeBytes(ByteBuffer.allocate(4).putInt(f.length).array());
            out.writeBytes(f);
        }
        return out.toByteArray();
    }

    static List<byte[]> randomFrames(Random r, int count, int maxSize) {
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] f = new byte[1 + r.nextInt(maxSize)];
            r.nextBytes(f);
            frames.add(f);
        }
        return frames;
    }

    @Test
    void framesComeWholeHoweverTheStreamIsSplit() {
        Random r = new Random(42);
        for (int round = 0; round < 200; round++) {
            List<byte[]> sent = randomFrames(r, 1 + r.nextInt(8), 300);
            byte[] bytes = stream(sent);
            FrameCutter cutter = new FrameCutter(16);  // most frames outgrow their first array
            Collected got = new Collected();
            for (int pos = 0; pos < bytes.length; ) {
                int n = Math.min(bytes.length - pos, 1 + r.nextInt(round % 2 == 0 ? 3 : 700));
                cutter.feed(Buffer.buffer().appendBytes(bytes, pos, n), got);
                pos += n;
            }
            assertEquals(sent.size(), got.frames.size(), "round " + round);
            for (int i = 0; i < sent.size(); i++) {
                assertArrayEquals(sent.get(i), got.frames.get(i), "round " + round + ", frame " + i);
            }
        }
    }

    @Test
    void aRefusedSizeOrAStoppingSinkEndsTheRead() {
        byte[] bytes = stream(List.of(new byte[] {1, 2}, new byte[100], new byte[] {3}));
        Collected refusing = new Collected();
        refusing.max = 50;
        new FrameCutter(16).feed(Buffer.buffer(bytes), refusing);
        assertEquals(List.of(2, 100), refusing.sizes, "nothing is read past the refused size");
        assertEquals(1, refusing.frames.size());

        Collected stopping = new Collected();
        stopping.stopAfter = 1;
        new FrameCutter(16).feed(Buffer.buffer(bytes), stopping);
        assertEquals(List.of(2), stopping.sizes, "nothing is read past the frame the sink stopped at");
    }

    @Test
    void aDeclaredSizeIsNotAllocatedBeforeItsBytesCome() {
        FrameCutter cutter = new FrameCutter(16);
        Collected got = new Collected();
        cutter.feed(Buffer.buffer(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE - 8).array()), got);
        cutter.feed(Buffer.buffer(new byte[64]), got);  // an array of the declared size would not fit the heap
        assertEquals(List.of(Integer.MAX_VALUE - 8), got.sizes);
        assertEquals(0, got.frames.size());
    }
}
