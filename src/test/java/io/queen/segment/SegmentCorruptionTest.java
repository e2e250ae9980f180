package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.github.luben.zstd.Zstd;
import io.queen.segment.SegmentFormatException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class SegmentCorruptionTest {

    private static final UUID ID = new UUID(0x1111, 0x2222);
    private static final byte[] TXN = "txn".getBytes(StandardCharsets.UTF_8);
    private static final byte[] PAYLOAD = "{\"k\":1}".getBytes(StandardCharsets.UTF_8);

    private static Kind kindOf(Executable e) {
        return assertThrows(SegmentFormatException.class, e).kind();
    }

    /** Every reading entry point, applied to a blob. */
    private static final List<Function<byte[], Object>> BLOB_READERS = List.of(
            SegmentCodec::decode,
            b -> SegmentCodec.decode(b, 0, 1),
            b -> SegmentCodec.decode(b, 1, 1),
            SegmentCodec::countFrames,
            SegmentCodec::decompress,
            b -> payloads(b, 0, 1),
            b -> payloads(b, 1, 1));

    /** The payloads of frames [start, start + take) as a {@link FrameCursor} reads them (null for a large blob). */
    private static Object payloads(byte[] blob, int start, int take) {
        FrameCursor c = SegmentCodec.cursor(blob, start, take);
        if (c == null) {
            return SegmentCodec.decode(blob, start, take);
        }
        List<byte[]> out = new java.util.ArrayList<>();
        while (c.next()) {
            out.add(Arrays.copyOfRange(c.raw(), c.payloadOffset(), c.payloadOffset() + c.payloadLength()));
        }
        return out;
    }

    private static void assertAllReadersFail(byte[] blob, Set<Kind> allowed) {
        for (Function<byte[], Object> reader : BLOB_READERS) {
            try {
                reader.apply(blob);
                fail("accepted " + Arrays.toString(Arrays.copyOf(blob, Math.min(blob.length, 16))));
            } catch (SegmentFormatException e) {
                assertTrue(allowed.contains(e.kind()), e.toString());
            }
        }
    }

    @Test
    void randomGarbageIsBadCompression() {
        Random r = new Random(99);
        for (int i = 0; i < 2000; i++) {
            byte[] garbage = TestFrames.bytes(r, r.nextInt(300));
            if (i % 2 == 1 && garbage.length >= 4) {
                // Valid magic, garbage after it: zstd itself must reject the rest.
                ByteBuffer.wrap(garbage).order(ByteOrder.LITTLE_ENDIAN).putInt(0xFD2FB528);
            }
            assertAllReadersFail(garbage, EnumSet.of(Kind.BAD_COMPRESSION));
        }
        assertAllReadersFail(new byte[0], EnumSet.of(Kind.BAD_COMPRESSION));
    }

    @Test
    void truncatedOrExtendedBlobIsBadCompression() {
        byte[] blob = SegmentCodec.encode(TestFrames.randomList(new Random(1), 30, 500));
        for (int cut = 0; cut < blob.length; cut++) {
            assertAllReadersFail(Arrays.copyOf(blob, cut), EnumSet.of(Kind.BAD_COMPRESSION));
        }
        assertAllReadersFail(Arrays.copyOf(blob, blob.length + 1), EnumSet.of(Kind.BAD_COMPRESSION));
        byte[] twice = Arrays.copyOf(blob, blob.length * 2);
        System.arraycopy(blob, 0, twice, blob.length, blob.length);
        assertAllReadersFail(twice, EnumSet.of(Kind.BAD_COMPRESSION));
    }

    /** A flipped bit anywhere must be detected, or (e.g. in an unused header bit) change nothing. */
    @Test
    void bitFlipsNeverLeakOtherExceptions() {
        List<Frame> frames = TestFrames.randomList(new Random(2), 12, 100);
        byte[] blob = SegmentCodec.encode(frames);
        for (int i = 0; i < blob.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = blob.clone();
                bad[i] ^= (byte) (1 << bit);
                try {
                    assertEquals(frames, SegmentCodec.decode(bad), "flip at " + i + "." + bit + " changed the frames silently");
                } catch (SegmentFormatException expected) {
                    // detected
                }
                try {
                    List<Frame> part = SegmentCodec.decode(bad, 3, 4);
                    assertEquals(4, part.size());
                } catch (SegmentFormatException expected) {
                    // detected
                }
            }
        }
    }

    /** Cutting the raw frame stream anywhere but on a frame boundary is detected, whatever the reader. */
    @Test
    void truncatedFrameStreamIsDetectedAtEveryCut() {
        List<Frame> frames = TestFrames.randomList(new Random(3), 6, 40);
        SegmentBuilder b = new SegmentBuilder();
        List<Integer> boundaries = new ArrayList<>(List.of(0));
        for (Frame f : frames) {
            b.add(f);
            boundaries.add(b.rawSize());
        }
        byte[] raw = b.toRawBytes();
        Set<Kind> truncation = EnumSet.of(Kind.TRUNCATED_FRAME, Kind.LENGTH_PAST_END);
        for (int c = 0; c <= raw.length; c++) {
            int cut = c;
            byte[] part = Arrays.copyOf(raw, cut);
            byte[] blob = Zstd.compress(part, 3);
            int whole = boundaries.indexOf(cut);
            if (whole >= 0) {
                assertEquals(frames.subList(0, whole), SegmentCodec.decode(blob));
                assertEquals(whole, SegmentCodec.countFrames(blob));
                continue;
            }
            int complete = (int) boundaries.stream().filter(x -> x < cut).count() - 1; // frames wholly before the cut
            assertTrue(truncation.contains(kindOf(() -> SegmentCodec.decode(blob))), "cut " + cut);
            assertTrue(truncation.contains(kindOf(() -> SegmentCodec.countFrames(blob))), "cut " + cut);
            assertTrue(truncation.contains(kindOf(() -> SegmentCodec.parseFrames(part))), "cut " + cut);
            assertTrue(truncation.contains(kindOf(() -> SegmentCodec.decode(blob, complete, 1))), "cut " + cut);
            assertTrue(truncation.contains(kindOf(() -> SegmentCodec.decode(blob, complete + 1, 0))), "cut " + cut);
            // Frames before the damage remain readable by range.
            assertEquals(frames.subList(0, complete), SegmentCodec.decode(blob, 0, complete));
            // Inside the length prefix it is a truncated frame; inside the body, a length past the end.
            int into = cut - boundaries.get(complete);
            assertEquals(into < 4 ? Kind.TRUNCATED_FRAME : Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob)), "cut " + cut);
        }
    }

    @Test
    void bodyLengthPastTheEnd() {
        byte[] good = new TestFrames.RawWriter().frame(0, ID, null, TXN, null, PAYLOAD).bytes();
        for (long claimed : new long[] {good.length - 4 + 1, 1000, 0x7FFF_FFFFL, 0xFFFF_FFFFL}) {
            byte[] raw = new TestFrames.RawWriter().raw(good).lengthThenBody(claimed, Arrays.copyOfRange(good, 4, good.length)).bytes();
            byte[] blob = Zstd.compress(raw, 3);
            assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob)), "claimed " + claimed);
            assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.countFrames(blob)));
            assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob, 1, 1)), "read path");
            assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob, 2, 0)), "skip path");
            assertEquals(1, SegmentCodec.decode(blob, 0, 1).size());
        }
    }

    @Test
    void bodyLengthPastTheEndWithoutContentSize() throws IOException {
        byte[] good = new TestFrames.RawWriter().frame(0, ID, null, TXN, null, PAYLOAD).bytes();
        byte[] raw = new TestFrames.RawWriter().raw(good).lengthThenBody(0xFFFF_FFFFL, new byte[200_000]).bytes();
        byte[] blob = SegmentCodecTest.streamCompress(raw);
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob)));
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob, 1, 1)));
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(blob, 2, 0)));
    }

    @Test
    void innerLengthsPastTheBodyEnd() {
        // txn_len claims 200 bytes but the body holds 3.
        byte[] body = new TestFrames.RawWriter().frame(0, ID, null, TXN, null, new byte[0]).bytes();
        body[4 + 17] = (byte) 200;
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.parseFrames(body)));
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(Zstd.compress(body, 3), 0, 1)));

        // psub_len claims 0xFFFF bytes.
        byte[] psub = new TestFrames.RawWriter().frame(2, ID, null, TXN, "ab".getBytes(), new byte[0]).bytes();
        psub[4 + 17 + 2 + 3] = (byte) 0xFF;
        psub[4 + 17 + 2 + 4] = (byte) 0xFF;
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.parseFrames(psub)));
        assertEquals(Kind.LENGTH_PAST_END, kindOf(() -> SegmentCodec.decode(Zstd.compress(psub, 3))));
    }

    @Test
    void bodiesShorterThanTheirFixedFields() {
        byte[] full = new TestFrames.RawWriter().frame(1, ID, ID, new byte[0], null, new byte[0]).bytes();
        for (int bodyLen = 1; bodyLen < full.length - 4; bodyLen++) { // 0 is a hole
            byte[] raw = new TestFrames.RawWriter().lengthThenBody(bodyLen, Arrays.copyOfRange(full, 4, 4 + bodyLen)).bytes();
            int len = bodyLen;
            assertEquals(Kind.TRUNCATED_FRAME, kindOf(() -> SegmentCodec.parseFrames(raw)), "body " + len);
            assertEquals(Kind.TRUNCATED_FRAME, kindOf(() -> SegmentCodec.decode(Zstd.compress(raw, 3), 0, 1)), "body " + len);
        }
        // Flag 2 set, but the body ends right after the transaction id: no room for psub_len.
        byte[] noPsubLen = new TestFrames.RawWriter().frame(0, ID, null, TXN, null, new byte[0]).bytes();
        noPsubLen[4] = 2;
        assertEquals(Kind.TRUNCATED_FRAME, kindOf(() -> SegmentCodec.parseFrames(noPsubLen)));
        // ...and with one byte of it.
        byte[] oneByte = new TestFrames.RawWriter().frame(0, ID, null, TXN, null, new byte[] {5}).bytes();
        oneByte[4] = 2;
        assertEquals(Kind.TRUNCATED_FRAME, kindOf(() -> SegmentCodec.parseFrames(oneByte)));
    }

    @Test
    void unknownFlagBits() {
        // unknown bits, and known ones in combinations no writer makes: a span without a trace id (16 without 1),
        // a key beside a Kafka record's own (32 with 8)
        for (int flags : new int[] {1 << 4, 1 << 5 | 8, 1 << 6, 1 << 7}) {
            int bit = flags;
            byte[] raw = new TestFrames.RawWriter()
                    .frame(0, ID, null, TXN, null, PAYLOAD)
                    .frame(flags, ID, null, TXN, null, PAYLOAD)
                    .bytes();
            byte[] blob = Zstd.compress(raw, 3);
            assertEquals(Kind.BAD_FLAGS, kindOf(() -> SegmentCodec.decode(blob)), "bit " + bit);
            assertEquals(Kind.BAD_FLAGS, kindOf(() -> SegmentCodec.decode(blob, 1, 1)), "bit " + bit);
            assertEquals(1, SegmentCodec.decode(blob, 0, 1).size(), "an earlier frame is still readable");
            assertEquals(2, SegmentCodec.countFrames(blob), "counting does not parse bodies");
        }
    }

    @Test
    void handWrittenFramesDecodeToTheSameValues() {
        UUID trace = new UUID(7, 8);
        byte[] raw = new TestFrames.RawWriter()
                .frame(0, ID, null, TXN, null, PAYLOAD)
                .frame(1 | 2 | 4, ID, trace, TXN, "sub".getBytes(), PAYLOAD)
                .bytes();
        assertEquals(List.of(new Frame(ID, null, "txn", null, false, PAYLOAD), new Frame(ID, trace, "txn", "sub", true, PAYLOAD)),
                SegmentCodec.decode(Zstd.compress(raw, 3)));
    }

    @Test
    void malformedUtf8InStrings() {
        byte[] raw = new TestFrames.RawWriter().frame(0, ID, null, new byte[] {'a', (byte) 0xC3}, null, PAYLOAD).bytes();
        assertEquals(Kind.BAD_UTF8, kindOf(() -> SegmentCodec.parseFrames(raw)));
        byte[] surrogate = new TestFrames.RawWriter()
                .frame(2, ID, null, TXN, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, PAYLOAD).bytes();
        assertEquals(Kind.BAD_UTF8, kindOf(() -> SegmentCodec.decode(Zstd.compress(surrogate, 3), 0, 1)));
    }

    @Test
    void indexBeyondCount() {
        byte[] blob = SegmentCodec.encode(List.of(TestFrames.simple(0), TestFrames.simple(1)));
        assertEquals(Kind.INDEX_OUT_OF_RANGE, kindOf(() -> SegmentCodec.decode(blob, 2, 1)));
        assertEquals(Kind.INDEX_OUT_OF_RANGE, kindOf(() -> SegmentCodec.decode(blob, 1, 2)));
        assertEquals(Kind.INDEX_OUT_OF_RANGE, kindOf(() -> SegmentCodec.decode(blob, 3, 0)));
        assertEquals(Kind.INDEX_OUT_OF_RANGE, kindOf(() -> SegmentCodec.parseFrames(SegmentCodec.decompress(blob), 5, 1)));
    }

    @Test
    void absurdContentSizeIsTooLarge() {
        // A frame header that claims 2 GiB (single-segment, 8-byte content size) followed by an empty last raw block.
        ByteBuffer bb = ByteBuffer.allocate(4 + 1 + 8 + 3).order(ByteOrder.LITTLE_ENDIAN);
        bb.putInt(0xFD2FB528).put((byte) 0xE0).putLong(1L << 31).put(new byte[] {1, 0, 0});
        byte[] blob = bb.array();
        assertEquals(1L << 31, Zstd.getFrameContentSize(blob));
        assertEquals(Kind.TOO_LARGE, kindOf(() -> SegmentCodec.decompress(blob)));
        assertEquals(Kind.TOO_LARGE, kindOf(() -> SegmentCodec.decode(blob)));
        assertEquals(Kind.TOO_LARGE, kindOf(() -> SegmentCodec.decode(blob, 0, 1)));
    }

    @Test
    void sizeCapHoldsWithAndWithoutContentSize() throws IOException {
        SegmentBuilder b = new SegmentBuilder();
        for (int i = 0; i < 200; i++) {
            b.add(TestFrames.simple(i));
        }
        byte[] raw = b.toRawBytes();
        byte[] sized = b.compress();
        byte[] unsized = SegmentCodecTest.streamCompress(raw);
        for (byte[] blob : List.of(sized, unsized)) {
            assertEquals(Kind.TOO_LARGE, kindOf(() -> SegmentCodec.decompress(blob, raw.length - 1)));
            assertEquals(Kind.TOO_LARGE, kindOf(() -> SegmentCodec.decode(blob, 150, 10, raw.length - 1)));
            assertEquals(raw.length, SegmentCodec.decompress(blob, raw.length).length);
            assertEquals(10, SegmentCodec.decode(blob, 150, 10, raw.length).size());
        }
        assertThrows(IllegalArgumentException.class, () -> SegmentCodec.decompress(sized, -1));
    }
}
