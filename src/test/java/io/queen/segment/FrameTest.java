package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class FrameTest {

    private static final UUID ID = new UUID(1, 2);

    @Test
    void requiredFieldsAreChecked() {
        assertThrows(NullPointerException.class, () -> new Frame(null, null, "t", null, false, new byte[0]));
        assertThrows(NullPointerException.class, () -> new Frame(ID, null, null, null, false, new byte[0]));
        assertThrows(NullPointerException.class, () -> new Frame(ID, null, "t", null, false, null));
        assertDoesNotThrow(() -> new Frame(ID, null, "", null, false, new byte[0]));
    }

    @Test
    void stringLimitsCountUtf8BytesNotChars() {
        assertDoesNotThrow(() -> new Frame(ID, null, "x".repeat(65535), null, false, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new Frame(ID, null, "x".repeat(65536), null, false, new byte[0]));
        // '€' is 3 UTF-8 bytes: 21845 of them are exactly 65535 bytes, one more is too many.
        assertDoesNotThrow(() -> new Frame(ID, null, "€".repeat(21845), null, false, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new Frame(ID, null, "€".repeat(21845) + "x", null, false, new byte[0]));
        assertDoesNotThrow(() -> new Frame(ID, null, "t", "s".repeat(65535), false, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new Frame(ID, null, "t", "s".repeat(65536), false, new byte[0]));
    }

    @Test
    void unpairedSurrogatesAreRejected() {
        // String.getBytes would silently turn these into '?', breaking the round trip.
        assertThrows(IllegalArgumentException.class, () -> new Frame(ID, null, "a\uD83Db", null, false, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new Frame(ID, null, "t", "\uDE00", false, new byte[0]));
        assertDoesNotThrow(() -> new Frame(ID, null, "\uD83D\uDE00", null, false, new byte[0]));
    }

    @Test
    void equalityComparesPayloadContent() {
        Frame a = new Frame(ID, new UUID(3, 4), "t", "s", true, new byte[] {1, 2, 3});
        Frame b = new Frame(ID, new UUID(3, 4), "t", "s", true, new byte[] {1, 2, 3});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, new Frame(ID, new UUID(3, 4), "t", "s", true, new byte[] {1, 2, 4}));
        assertNotEquals(a, new Frame(ID, new UUID(3, 4), "t", "s", false, new byte[] {1, 2, 3}));
        assertNotEquals(a, new Frame(ID, null, "t", "s", true, new byte[] {1, 2, 3}));
        assertNotEquals(a, new Frame(ID, new UUID(3, 4), "t", null, true, new byte[] {1, 2, 3}));
        assertNotEquals(a, new Frame(ID, new UUID(3, 4), "u", "s", true, new byte[] {1, 2, 3}));
        assertNotEquals(a, new Frame(new UUID(1, 3), new UUID(3, 4), "t", "s", true, new byte[] {1, 2, 3}));
        assertFalse(a.equals(null));
    }

    @Test
    void toStringShowsPayloadSizeNotBytes() {
        String s = new Frame(ID, null, "txn", null, false, "secret".getBytes()).toString();
        assertTrue(s.contains("txn") && s.contains("6 bytes"), s);
        assertFalse(s.contains("secret"), s);
    }

    @Test
    void encodedSizeMatchesWhatTheBuilderWrites() {
        Frame f = new Frame(ID, new UUID(5, 6), "ключ-😀-鍵", "sub-é", true, new byte[37]);
        SegmentBuilder b = new SegmentBuilder();
        b.add(f);
        assertEquals(b.rawSize(), f.encodedSize());
        // 4 + 1 + 16 + 16 + 2 + 17 + 2 + 6 + 37
        assertEquals(101, f.encodedSize());
    }

    @Test
    void aSpanContextRoundTripsAndNeedsATraceId() {
        UUID trace = new UUID(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L);
        Frame withSpan = new Frame(ID, trace, "t", "sub", false, new byte[] {1, 2}, false, 0x00f067aa0ba902b7L,
                (byte) 1);
        Frame traceOnly = new Frame(ID, trace, "t", null, false, new byte[] {3});
        byte[] blob = SegmentCodec.encode(java.util.List.of(withSpan, traceOnly));
        assertEquals(java.util.List.of(withSpan, traceOnly), SegmentCodec.decode(blob));
        assertEquals(traceOnly.encodedSize() + 9 + (2 + 3) + 1, withSpan.encodedSize(), "9 bytes for the span");
        assertNotEquals(withSpan, new Frame(ID, trace, "t", "sub", false, new byte[] {1, 2}, false, 7, (byte) 1));
        assertThrows(IllegalArgumentException.class,
                () -> new Frame(ID, null, "t", null, false, new byte[0], false, 7, (byte) 1));
    }

    @Test
    void aKeyRoundTripsWithEveryOtherOptionalField() {
        UUID trace = new UUID(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L);
        byte[] key = "user-42/é".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Frame keyed = new Frame(ID, null, "t", null, false, new byte[] {1}, false, 0, (byte) 0, key);
        Frame all = new Frame(ID, trace, "t", "sub", true, new byte[] {1, 2}, false, 0x00f067aa0ba902b7L, (byte) 1,
                new byte[] {0, (byte) 0xFF, 7});
        Frame unkeyed = new Frame(ID, null, "t", null, false, new byte[] {1});
        byte[] blob = SegmentCodec.encode(java.util.List.of(keyed, all, unkeyed));
        java.util.List<Frame> back = SegmentCodec.decode(blob);
        assertEquals(java.util.List.of(keyed, all, unkeyed), back);
        assertArrayEquals(key, back.get(0).key());
        assertNull(back.get(2).key(), "no flag 32, no key");
        assertEquals(unkeyed.encodedSize() + 2 + key.length, keyed.encodedSize());
        assertNotEquals(unkeyed, keyed);
        // the builder's field-wise add writes the same bytes as add(Frame)
        SegmentBuilder fieldWise = new SegmentBuilder();
        fieldWise.add(ID, trace, 0x00f067aa0ba902b7L, (byte) 1, "t".getBytes(), "sub".getBytes(),
                new byte[] {0, (byte) 0xFF, 7}, true, false, new byte[] {1, 2}, 0, 2);
        assertEquals(java.util.List.of(all), SegmentCodec.decode(fieldWise.compress(3)));
        assertEquals(all.encodedSize(), fieldWise.rawSize());
    }

    @Test
    void aKeyIsNeverStoredWithAKafkaRecord() {
        assertThrows(IllegalArgumentException.class,
                () -> new Frame(ID, null, "t", null, false, new byte[0], true, 0, (byte) 0, new byte[] {1}));
        assertThrows(IllegalArgumentException.class, () -> new SegmentBuilder().add(ID, null, 0, (byte) 0,
                "t".getBytes(), null, new byte[] {1}, false, true, new byte[0], 0, 0));
        // a frame that sets both flags anyway is refused by the decoder
        byte[] raw = raw(new Frame(ID, null, "t", null, false, new byte[] {1}, false, 0, (byte) 0, new byte[] {9}));
        raw[4] |= 8;
        SegmentFormatException e = assertThrows(SegmentFormatException.class, () -> SegmentCodec.parseFrames(raw));
        assertEquals(SegmentFormatException.Kind.BAD_FLAGS, e.kind());
    }

    @Test
    void aKeyLengthPastTheBodyEndIsRefused() {
        byte[] raw = raw(new Frame(ID, null, "t", null, false, new byte[] {1}, false, 0, (byte) 0, new byte[] {9}));
        int keyLen = 4 + 1 + 16 + 2 + 1;  // length prefix, flags, message id, txn_len, "t"
        assertEquals(1, raw[keyLen]);
        raw[keyLen] = 3;  // 3 key bytes claimed, 2 body bytes left (the key and the payload)
        SegmentFormatException e = assertThrows(SegmentFormatException.class, () -> SegmentCodec.parseFrames(raw));
        assertEquals(SegmentFormatException.Kind.LENGTH_PAST_END, e.kind());
        raw[keyLen] = 2;  // the key takes the payload's byte: still a frame
        assertEquals(0, SegmentCodec.parseFrames(raw).get(0).payload().length);
        // flag 32 on a body that ends before key_len
        byte[] bare = raw(new Frame(ID, null, "t", null, false, new byte[0]));
        bare[4] |= 32;
        e = assertThrows(SegmentFormatException.class, () -> SegmentCodec.parseFrames(bare));
        assertEquals(SegmentFormatException.Kind.TRUNCATED_FRAME, e.kind());
    }

    /** The raw (uncompressed) bytes of one frame, its u32 length prefix first. */
    private static byte[] raw(Frame f) {
        SegmentBuilder b = new SegmentBuilder();
        b.add(f);
        return com.github.luben.zstd.Zstd.decompress(b.compress(3), b.rawSize());
    }
}
