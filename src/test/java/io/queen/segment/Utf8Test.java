package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {

    @Test
    void validatorAgreesWithTheJdkStrictDecoder() {
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        Random r = new Random(12);
        int valid = 0;
        for (int i = 0; i < 200_000; i++) {
            byte[] b = new byte[1 + r.nextInt(6)];
            for (int k = 0; k < b.length; k++) {
                // Bias towards the interesting lead and continuation ranges.
                b[k] = (byte) (r.nextInt(4) == 0 ? r.nextInt(128) : 0x80 + r.nextInt(128));
            }
            boolean jdk;
            try {
                strict.reset().decode(ByteBuffer.wrap(b));
                jdk = true;
            } catch (CharacterCodingException e) {
                jdk = false;
            }
            assertEquals(jdk, Utf8.isWellFormed(b, 0, b.length), () -> java.util.HexFormat.of().formatHex(b));
            if (jdk) {
                valid++;
            }
        }
        assertTrue(valid > 1000, "too few valid samples: " + valid);
    }

    @Test
    void knownEdgeCases() {
        assertTrue(Utf8.isWellFormed(bytes(0xF4, 0x8F, 0xBF, 0xBF), 0, 4)); // U+10FFFF
        assertFalse(Utf8.isWellFormed(bytes(0xF4, 0x90, 0x80, 0x80), 0, 4)); // > U+10FFFF
        assertFalse(Utf8.isWellFormed(bytes(0xED, 0xA0, 0x80), 0, 3)); // surrogate
        assertFalse(Utf8.isWellFormed(bytes(0xE0, 0x80, 0x80), 0, 3)); // overlong
        assertFalse(Utf8.isWellFormed(bytes(0xC1, 0xBF), 0, 2)); // overlong
        assertFalse(Utf8.isWellFormed(bytes(0xE2, 0x82), 0, 2)); // truncated
        assertTrue(Utf8.isWellFormed(bytes('x', 0xE2, 0x82, 0xAC), 1, 3)); // only the slice counts
        assertFalse(Utf8.isWellFormed(bytes(0xE2, 0x82, 0xAC), 0, 2));
    }

    @Test
    void encoderMatchesTheJdkForWellFormedStrings() {
        Random r = new Random(13);
        for (int i = 0; i < 20_000; i++) {
            String s = TestFrames.string(r, 20);
            byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
            assertEquals(jdk.length, Utf8.encodedLength(s));
            assertArrayEquals(jdk, Utf8.bytes(s));
            assertEquals(s, Utf8.decodeWellFormed(jdk, 0, jdk.length));
        }
        assertThrows(IllegalArgumentException.class, () -> Utf8.encodedLength("\uDC00x"));
        assertThrows(IllegalArgumentException.class, () -> Utf8.encodedLength("x\uD800"));
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }
}
