package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class KafkaTxnIdTest {
    static boolean parse(String id, long[] out) {
        return KafkaTxnId.parse(id.getBytes(StandardCharsets.UTF_8), out);
    }

    @Test
    void readsBackWhatItWrites() {
        long[] out = new long[3];
        for (long[] v : new long[][] {{0, 0, 0}, {1, 2, 3}, {999_999_999_999_999_999L, Short.MAX_VALUE,
                Integer.MAX_VALUE}}) {
            assertTrue(parse(KafkaTxnId.of(v[0], (short) v[1], (int) v[2]), out));
            assertArrayEquals(v, out);
        }
    }

    @Test
    void anyOtherSpellingIsNotASequence() {
        long[] out = new long[3];
        for (String id : new String[] {"kafka:", "kafka:1:2", "kafka:1:2:", "kafka:1:2:3:", "kafka:01:2:3",
                "kafka:1:02:3", "kafka:1:2:03", "kafka:-1:2:3", "kafka:1:-2:3", "kafka:1:2:-3", "kafka:1:2:3x",
                "kafka:1:32768:3", "kafka:1:2:2147483648", "kafka:1000000000000000000:2:3", "Kafka:1:2:3",
                "kafka:1:2:3 ", "kafka:１:2:3", KafkaTxnId.of(UUID.randomUUID()), "orders-1"}) {
            assertFalse(parse(id, out), id);
        }
    }
}
