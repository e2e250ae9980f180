package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;
import io.queen.segment.SegmentFormatException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SegmentCodecTest {

    private static final UUID MID = UUID.fromString("00112233-4455-6677-8899-aabbccddeeff");
    private static final UUID TID = UUID.fromString("f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f");

    @Test
    void holesKeepThePositionsOfTheFramesAfterThem() {
        Frame a = Frame.of(MID, "a", new byte[] {1});
        Frame b = Frame.of(TID, "b", new byte[] {2});
        byte[] blob = SegmentCodec.encode(List.of(a, Frame.HOLE, Frame.HOLE, b));
        assertEquals("00000000", HexFormat.of().formatHex(SegmentCodec.decompress(blob), 25, 29));
        List<Frame> all = SegmentCodec.decode(blob);
        assertEquals(List.of(a, Frame.HOLE, Frame.HOLE, b), all);
        assertTrue(all.get(1).isHole() && !all.get(0).isHole() && !Frame.of(new UUID(0, 0), "", null).isHole());
        assertEquals(List.of(b), SegmentCodec.decode(blob, 3, 1));
        assertEquals(4, SegmentCodec.countFrames(blob));
        assertEquals(4, Frame.HOLE.encodedSize());
    }

    @Test
    void aRunOfHolesCompressesToAlmostNothing() {
        SegmentBuilder b = new SegmentBuilder();
        for (int i = 0; i < 99_000; i++) {
            b.addHole();
        }
        byte[] blob = b.compress();
        assertTrue(blob.length < 200, blob.length + " bytes");
        assertEquals(99_000, SegmentCodec.countFrames(blob));
        assertTrue(SegmentCodec.decode(blob, 98_999, 1).get(0).isHole());
    }

    @Test
    void wireFormatMatchesTheSpecByteForByte() {
        Frame f = new Frame(MID, TID, "tx", "ps", true, new byte[] {'{', '}'});
        byte[] raw = SegmentCodec.decompress(SegmentCodec.encode(List.of(f), 3));
        String expected = ""
                + "2b000000" // body_len = 43, little-endian
                + "07" // flags: trace | psub | encrypted
                + "00112233445566778899aabbccddeeff" // message id, canonical byte order
                + "f0e1d2c3b4a5968778695a4b3c2d1e0f" // trace id
                + "0200" + "7478" // txn_len = 2, "tx"
                + "0200" + "7073" // psub_len = 2, "ps"
                + "7b7d"; // payload "{}"
        assertEquals(expected, HexFormat.of().formatHex(raw));

        byte[] minimal = SegmentCodec.decompress(SegmentCodec.encode(List.of(Frame.of(MID, "", new byte[0]))));
        assertEquals("13000000" + "00" + "00112233445566778899aabbccddeeff" + "0000", HexFormat.of().formatHex(minimal));
        byte[] kafka = SegmentCodec.decompress(SegmentCodec.encode(List.of(new Frame(MID, null, "", null, false,
                new byte[] {1}, true))));
        assertEquals("14000000" + "08" + "00112233445566778899aabbccddeeff" + "0000" + "01", HexFormat.of().formatHex(kafka),
                "flag 8: the payload is a Kafka record in binary form");
    }

    @Test
    void everyCombinationOfOptionalFieldsRoundTrips() {
        List<Frame> all = new ArrayList<>();
        for (UUID trace : new UUID[] {null, TID}) {
            for (String psub : new String[] {null, "", "producer-7"}) {
                for (boolean enc : new boolean[] {false, true}) {
                    for (boolean kafka : new boolean[] {false, true}) {
                        Frame f = new Frame(MID, trace, "txn", psub, enc, "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
                                kafka);
                        assertEquals(List.of(f), SegmentCodec.decode(SegmentCodec.encode(List.of(f), 3)), f.toString());
                        all.add(f);
                    }
                }
            }
        }
        byte[] blob = SegmentCodec.encode(all, 3);
        assertEquals(all, SegmentCodec.decode(blob));
        assertEquals(24, SegmentCodec.countFrames(blob));
        for (int i = 0; i < all.size(); i++) {
            assertEquals(all.get(i), SegmentCodec.decode(blob, i, 1).get(0));
        }
    }

    @Test
    void emptyPayloadAndEmptyTransactionIdRoundTrip() {
        Frame f = new Frame(MID, null, "", null, false, new byte[0]);
        List<Frame> back = SegmentCodec.decode(SegmentCodec.encode(List.of(f, f, f)));
        assertEquals(List.of(f, f, f), back);
        assertEquals(0, back.get(1).payload().length);
    }

    @Test
    void oneMebibytePayloadWithNonUtf8BytesIsPreservedExactly() {
        byte[] payload = TestFrames.bytes(new Random(42), 1 << 20);
        payload[0] = (byte) 0xFF; // never valid in UTF-8
        payload[1] = (byte) 0xC0;
        payload[2] = 0;
        Frame small = Frame.of(MID, "before", new byte[] {1});
        Frame big = new Frame(TID, MID, "big", "sub", true, payload);
        byte[] blob = SegmentCodec.encode(List.of(small, big, small));
        List<Frame> back = SegmentCodec.decode(blob);
        assertArrayEquals(payload, back.get(1).payload());
        assertEquals(List.of(small, big, small), back);
        // Ranged decoding: the big body is larger than the streaming window, skipped and read.
        assertEquals(List.of(small), SegmentCodec.decode(blob, 2, 1));
        assertEquals(List.of(big), SegmentCodec.decode(blob, 1, 1));
    }

    @Test
    void nonAsciiStringsRoundTrip() {
        Frame f = new Frame(MID, TID, "ключ-😀-鍵", "производитель-😀-鍵-𝄞", false, "{}".getBytes(StandardCharsets.UTF_8));
        Frame back = SegmentCodec.decode(SegmentCodec.encode(List.of(f))).get(0);
        assertEquals("ключ-😀-鍵", back.transactionId());
        assertEquals("производитель-😀-鍵-𝄞", back.producerSub());
        assertEquals(f, back);
    }

    @Test
    void maximalStringsRoundTrip() {
        String txn = "€".repeat(21845); // 65535 UTF-8 bytes
        String psub = "p".repeat(65535);
        Frame f = new Frame(MID, null, txn, psub, false, new byte[] {9});
        assertEquals(List.of(f), SegmentCodec.decode(SegmentCodec.encode(List.of(f))));
    }

    @Test
    void manyFramesPerSegment() {
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            frames.add(TestFrames.simple(i));
        }
        byte[] blob = SegmentCodec.encode(frames, 3);
        assertEquals(20_000, SegmentCodec.countFrames(blob));
        assertEquals(frames, SegmentCodec.decode(blob));
        assertEquals(frames.subList(19_990, 20_000), SegmentCodec.decode(blob, 19_990, 10));
        assertEquals(frames.subList(12_345, 12_346), SegmentCodec.decode(blob, 12_345, 1));
    }

    @Test
    void rangedDecodeEqualsSublistForEveryRange() {
        List<Frame> frames = TestFrames.randomList(new Random(7), 9, 300);
        byte[] blob = SegmentCodec.encode(frames, 3);
        List<Frame> all = SegmentCodec.decode(blob);
        assertEquals(frames, all);
        byte[] raw = SegmentCodec.decompress(blob);
        for (int start = 0; start <= frames.size(); start++) {
            for (int take = 0; start + take <= frames.size(); take++) {
                assertEquals(all.subList(start, start + take), SegmentCodec.decode(blob, start, take), start + "+" + take);
                assertEquals(all.subList(start, start + take), SegmentCodec.parseFrames(raw, start, take), start + "+" + take);
            }
            for (int take = frames.size() - start + 1; take <= frames.size() + 2; take++) {
                int s = start;
                int t = take;
                assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, s, t)).kind());
                assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> SegmentCodec.parseFrames(raw, s, t)).kind());
            }
        }
        assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, 10, 0)).kind());
        assertEquals(Kind.INDEX_OUT_OF_RANGE,
                assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, 0, Integer.MAX_VALUE)).kind());
        assertEquals(Kind.INDEX_OUT_OF_RANGE,
                assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, Integer.MAX_VALUE, Integer.MAX_VALUE)).kind());
        assertThrows(IllegalArgumentException.class, () -> SegmentCodec.decode(blob, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> SegmentCodec.decode(blob, 0, -1));
    }

    @Test
    void aCursorReadsEveryRangeAsTheRangedDecodeDoes() {
        List<Frame> frames = new ArrayList<>(TestFrames.randomList(new Random(11), 9, 300));
        frames.add(3, Frame.HOLE);
        frames.add(new Frame(MID, TID, "kafka:1:0:7", "sub", false, new byte[] {0, 1, 2}, true, 42, (byte) 1));
        frames.add(new Frame(MID, null, "kafka:1:0:8", null, true, new byte[] {3, 4}, true));
        byte[] blob = SegmentCodec.encode(frames, 3);
        for (int start = 0; start <= frames.size(); start++) {
            for (int take = 0; start + take <= frames.size(); take++) {
                List<Frame> want = SegmentCodec.decode(blob, start, take);
                FrameCursor c = SegmentCodec.cursor(blob, start, take);
                for (Frame f : want) {
                    assertTrue(c.next(), start + "+" + take);
                    assertEquals(f.isHole(), c.isHole());
                    assertEquals(f, c.frame());
                    assertEquals(!f.isHole() && f.kafkaRecord() && !f.encrypted(), c.plainKafkaRecord(), f.toString());
                    assertArrayEquals(f.payload(), java.util.Arrays.copyOfRange(c.raw(), c.payloadOffset(),
                            c.payloadOffset() + c.payloadLength()), f.toString());
                }
                assertEquals(false, c.next());
            }
            int s = start;
            int t = frames.size() - start + 1;
            assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> {
                FrameCursor c = SegmentCodec.cursor(blob, s, t);
                while (c.next()) {
                    // reads until the segment ends before the range does
                }
            }).kind());
        }
        assertThrows(IllegalArgumentException.class, () -> SegmentCodec.cursor(blob, -1, 1));
        byte[] large = SegmentCodec.encode(List.of(Frame.of(MID, "t",
                new byte[SegmentCodec.WHOLE_INFLATE_LIMIT + 1])), 3);
        assertEquals(null, SegmentCodec.cursor(large, 0, 1), "a segment larger than the whole-inflate limit streams");
    }

    @Test
    void emptySegment() {
        byte[] blob = SegmentCodec.encode(List.of());
        assertEquals(List.of(), SegmentCodec.decode(blob));
        assertEquals(0, SegmentCodec.countFrames(blob));
        assertEquals(List.of(), SegmentCodec.decode(blob, 0, 0));
        assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, 0, 1)).kind());
        assertEquals(Kind.INDEX_OUT_OF_RANGE, assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob, 1, 0)).kind());
    }

    @Test
    void blobIsOneZstdFrameRecordingTheRawSize() {
        SegmentBuilder b = new SegmentBuilder();
        for (int i = 0; i < 100; i++) {
            b.add(TestFrames.simple(i));
        }
        byte[] blob = b.compress(3);
        assertEquals(b.rawSize(), Zstd.getFrameContentSize(blob));
        assertEquals(blob.length, Zstd.findFrameCompressedSize(blob));
        assertArrayEquals(b.toRawBytes(), Zstd.decompress(blob, b.rawSize()));
        assertArrayEquals(b.toRawBytes(), SegmentCodec.decompress(blob));
    }

    @Test
    void compressionIsPerSegmentNotPerMessage() {
        Random r = new Random(1);
        List<Frame> frames = new ArrayList<>();
        long payloadBytes = 0;
        for (int i = 0; i < 1000; i++) {
            String json = "{\"orderId\":\"ord-" + (100000 + r.nextInt(900000)) + "\",\"customer\":{\"id\":" + r.nextInt(100000)
                    + ",\"tier\":\"gold\",\"region\":\"eu-west-1\"},\"items\":[{\"sku\":\"SKU-" + r.nextInt(1000)
                    + "\",\"qty\":" + (1 + r.nextInt(5)) + ",\"price\":" + r.nextInt(10000) / 100.0
                    + "}],\"status\":\"CREATED\",\"createdAt\":\"2025-01-0" + (1 + r.nextInt(9)) + "T12:00:00Z\"}";
            byte[] p = json.getBytes(StandardCharsets.UTF_8);
            payloadBytes += p.length;
            frames.add(new Frame(Uuid7.next(), null, "txn-" + i, "svc-orders", false, p));
        }
        assertTrue(payloadBytes / 1000 >= 180 && payloadBytes / 1000 <= 240, "avg payload " + payloadBytes / 1000);
        SegmentBuilder b = new SegmentBuilder();
        frames.forEach(b::add);
        byte[] blob = b.compress(3);
        double ratio = (double) blob.length / b.rawSize();
        assertTrue(ratio < 0.40, "compressed/raw = " + ratio);
        // Compressing each message alone cannot reach that; this is what one frame per segment buys.
        long perMessage = frames.stream().mapToLong(f -> SegmentCodec.encode(List.of(f), 3).length).sum();
        assertTrue(blob.length * 2 < perMessage, blob.length + " vs per-message " + perMessage);
        assertEquals(frames, SegmentCodec.decode(blob));
    }

    @Test
    void everyLevelRoundTripsAndBadLevelsAreRejected() {
        List<Frame> frames = TestFrames.randomList(new Random(3), 20, 200);
        for (int level : new int[] {-5, 1, 3, 9, 19}) {
            assertEquals(frames, SegmentCodec.decode(SegmentCodec.encode(frames, level)), "level " + level);
        }
        assertThrows(IllegalArgumentException.class, () -> SegmentCodec.encode(frames, 23));
    }

    /** Blobs from a streaming writer carry no content size; decoding falls back to streaming. */
    @Test
    void blobWithoutContentSizeDecodes() throws IOException {
        List<Frame> frames = new ArrayList<>(TestFrames.randomList(new Random(5), 50, 2000));
        frames.add(25, new Frame(MID, TID, "big", null, false, TestFrames.bytes(new Random(6), 300_000)));
        SegmentBuilder b = new SegmentBuilder();
        frames.forEach(b::add);
        byte[] raw = b.toRawBytes();
        byte[] blob = streamCompress(raw);
        assertEquals(-1, Zstd.getFrameContentSize(blob));
        assertArrayEquals(raw, SegmentCodec.decompress(blob));
        assertEquals(frames, SegmentCodec.decode(blob));
        assertEquals(51, SegmentCodec.countFrames(blob));
        assertEquals(frames.subList(20, 30), SegmentCodec.decode(blob, 20, 10));
        assertEquals(frames.subList(26, 51), SegmentCodec.decode(blob, 26, 25));
        assertEquals(List.of(), SegmentCodec.decode(streamCompress(new byte[0])));
    }

    /**
     * Ranged decoding stops inflating after its last frame: corruption near the end of a large blob
     * breaks a full decode (zstd checksum) but not a read of the first frames.
     */
    @Test
    void rangedDecodeStopsBeforeTheRestOfTheSegment() {
        Random r = new Random(11);
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            frames.add(Frame.of(new UUID(0, i), "t" + i, TestFrames.bytes(r, 32 * 1024))); // incompressible
        }
        byte[] blob = SegmentCodec.encode(frames, 3);
        blob[blob.length - 100] ^= 0x5A; // inside the last block's data, ~2 MiB into the raw stream
        assertEquals(Kind.BAD_COMPRESSION, assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(blob)).kind());
        assertEquals(frames.subList(0, 3), SegmentCodec.decode(blob, 0, 3));
        assertEquals(frames.subList(10, 12), SegmentCodec.decode(blob, 10, 2));
    }

    static byte[] streamCompress(byte[] raw) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (ZstdOutputStream zo = new ZstdOutputStream(bo, 3)) {
            zo.write(raw);
        }
        return bo.toByteArray();
    }

    /**
     * Ranged decodes inflate segments up to WHOLE_INFLATE_LIMIT raw bytes whole (so a damaged checksum is caught
     * even for the first frame) and stream larger ones; both answer the same frames.
     */
    @Test
    void rangedDecodeInflatesSmallSegmentsWholeAndStreamsLargeOnes() {
        List<Frame> small = TestFrames.randomList(new Random(11), 20, 200);
        byte[] blob = SegmentCodec.encode(small);
        assertEquals(small.subList(5, 9), SegmentCodec.decode(blob, 5, 4));
        byte[] badSum = blob.clone();
        badSum[badSum.length - 1] ^= 1;   // the content checksum is the last 4 bytes of the frame
        assertEquals(Kind.BAD_COMPRESSION,
                assertThrows(SegmentFormatException.class, () -> SegmentCodec.decode(badSum, 0, 1)).kind());

        List<Frame> large = TestFrames.randomList(new Random(12), 400, 8000);
        byte[] big = SegmentCodec.encode(large);
        assertTrue(SegmentCodec.decompress(big).length > SegmentCodec.WHOLE_INFLATE_LIMIT, "streamed path");
        assertEquals(large.subList(390, 400), SegmentCodec.decode(big, 390, 10));
        assertEquals(large.subList(0, 2), SegmentCodec.decode(big, 0, 2));
    }
}
