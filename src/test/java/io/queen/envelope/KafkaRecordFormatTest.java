package io.queen.envelope;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.queen.segment.Frame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** The binary form of a Kafka record: round trips, damaged bytes, and the JSON view HTTP readers get of it. */
class KafkaRecordFormatTest {
    static final byte[] BINARY = {(byte) 0xff, 0, (byte) 0xc3, 0x28};

    static ByteBuffer buf(byte[] b) {
        return b == null ? null : ByteBuffer.wrap(b);
    }

    static void assertRoundTrip(long ts, byte[] key, byte[] value, Header... headers) {
        RecordEnvelope.Kafka k = KafkaRecordFormat.decode(KafkaRecordFormat.encode(ts, buf(key), buf(value), headers));
        assertEquals(ts, k.timestamp());
        assertArrayEquals(key, k.key());
        assertArrayEquals(value, k.value());
        assertEquals(headers.length, k.headers().length);
        for (int i = 0; i < headers.length; i++) {
            assertEquals(headers[i].key(), k.headers()[i].key());
            assertArrayEquals(headers[i].value(), k.headers()[i].value());
        }
    }

    @Test
    void recordsRoundTripWithAbsentAndBinaryParts() {
        assertRoundTrip(1_690_000_000_000L, "k".getBytes(StandardCharsets.UTF_8), "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
                new RecordHeader("trace", "t-1".getBytes(StandardCharsets.UTF_8)), new RecordHeader("ключ", null));
        assertRoundTrip(-1, null, null);
        assertRoundTrip(0, new byte[0], new byte[0], new RecordHeader("", new byte[0]));
        assertRoundTrip(Long.MAX_VALUE, BINARY, BINARY, new RecordHeader("bin", BINARY));
    }

    @Test
    void aBufferIsReadFromItsPositionAndLeftAsItWas() {
        ByteBuffer value = ByteBuffer.wrap("xxvalue".getBytes(StandardCharsets.UTF_8)).position(2);
        RecordEnvelope.Kafka k = KafkaRecordFormat.decode(KafkaRecordFormat.encode(5, null, value, new Header[0]));
        assertEquals("value", new String(k.value(), StandardCharsets.UTF_8));
        assertEquals(2, value.position());
        ByteBuffer direct = ByteBuffer.allocateDirect(7).put("xxvalue".getBytes(StandardCharsets.UTF_8)).position(2);
        assertEquals("value", new String(KafkaRecordFormat.decode(KafkaRecordFormat.encode(5, null, direct,
                new Header[0])).value(), StandardCharsets.UTF_8), "a buffer without an array");
        assertEquals(2, direct.position());
    }

    @Test
    void damagedBytesAreNoRecord() {
        byte[] good = KafkaRecordFormat.encode(7, buf(BINARY), buf(BINARY), new Header[] {new RecordHeader("h", BINARY)});
        for (int n = 0; n < good.length; n++) {
            assertNull(KafkaRecordFormat.decode(Arrays.copyOf(good, n)), "truncated to " + n);
        }
        assertNull(KafkaRecordFormat.decode(Arrays.copyOf(good, good.length + 1)), "a byte past the value");
        ByteBuffer huge = ByteBuffer.allocate(20).putLong(1).putInt(-1).putInt(Integer.MAX_VALUE).putInt(-1);
        assertNull(KafkaRecordFormat.decode(huge.array()), "a header count beyond the bytes");
        ByteBuffer negative = ByteBuffer.allocate(16).putLong(1).putInt(-2).putInt(0);
        assertNull(KafkaRecordFormat.decode(negative.array()), "a negative key length");
    }

    @Test
    void httpReadersGetTheJsonEnvelopeTheListenerWroteBefore() {
        Header[] headers = {new RecordHeader("trace", "t-1".getBytes(StandardCharsets.UTF_8)), new RecordHeader("b", BINARY)};
        for (byte[] value : new byte[][] {"{\"a\": [1, 2]}".getBytes(StandardCharsets.UTF_8), BINARY, null,
                "plain text".getBytes(StandardCharsets.UTF_8)}) {
            byte[] json = RecordEnvelope.encode(42, buf(BINARY), buf(value), headers);
            Frame binary = new Frame(UUID.randomUUID(), null, "kafka:1:0:0", null, false,
                    KafkaRecordFormat.encode(42, buf(BINARY), buf(value), headers), true);
            assertArrayEquals(json, RecordEnvelope.httpPayload(binary, binary.payload()));
            // and a Kafka reader gets the same record from either form
            RecordEnvelope.Kafka fromBinary = RecordEnvelope.decode(binary, binary.payload(), null, 0);
            RecordEnvelope.Kafka fromJson = RecordEnvelope.decode(new Frame(UUID.randomUUID(), null, "kafka:1:0:0",
                    null, false, json), json, null, 0);
            assertArrayEquals(fromJson.value(), fromBinary.value());
            assertArrayEquals(fromJson.key(), fromBinary.key());
            assertEquals(fromJson.timestamp(), fromBinary.timestamp());
        }
        Frame damaged = new Frame(UUID.randomUUID(), null, "kafka:1:0:0", null, false, new byte[] {1, 2}, true);
        assertThrows(IllegalStateException.class, () -> RecordEnvelope.httpPayload(damaged, damaged.payload()));
    }
}
