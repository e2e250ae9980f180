package io.queen.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class TraceParentTest {
    static final String W3C_EXAMPLE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void theW3cExampleParsesAndFormatsBack() {
        TraceParent t = TraceParent.parse(W3C_EXAMPLE);
        assertEquals(UUID.fromString("4bf92f35-77b3-4da6-a3ce-929d0e0e4736"), t.traceId());
        assertEquals(0x00f067aa0ba902b7L, t.spanId());
        assertTrue(t.sampled());
        assertEquals(W3C_EXAMPLE, t.toString());
        assertFalse(TraceParent.parse(W3C_EXAMPLE.replace("-01", "-00")).sampled());
        assertEquals("00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-ff",
                new TraceParent(new UUID(-1, -1), -1, (byte) -1).toString());
    }

    @Test
    void laterVersionsMayCarryMoreFieldsButVersion00MayNot() {
        assertEquals(0x00f067aa0ba902b7L, TraceParent.parse("cc" + W3C_EXAMPLE.substring(2) + "-what-the-future-holds")
                .spanId());
        assertThrows(IllegalArgumentException.class, () -> TraceParent.parse(W3C_EXAMPLE + "-x"));
        assertThrows(IllegalArgumentException.class, () -> TraceParent.parse("cc" + W3C_EXAMPLE.substring(2) + "x"));
    }

    @Test
    void malformedValuesAreRefused() {
        for (String bad : new String[] {null, "", "00", W3C_EXAMPLE.toUpperCase(), "ff" + W3C_EXAMPLE.substring(2),
                W3C_EXAMPLE.replace('-', '_'), "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x"}) {
            assertThrows(IllegalArgumentException.class, () -> TraceParent.parse(bad), String.valueOf(bad));
        }
    }
}
