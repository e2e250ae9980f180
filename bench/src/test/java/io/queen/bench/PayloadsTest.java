package io.queen.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PayloadsTest {

    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void paddedToExactSizeAndRoundTrips() throws Exception {
        String p = Payloads.payload(3, 123_456, 987_654_321_000L, 256);
        assertEquals(256, Payloads.utf8Length(p));
        Payloads.Stamp s = Payloads.stamp(mapper.readTree(p));
        assertEquals(new Payloads.Stamp(3, 123_456, 987_654_321_000L), s);
        assertTrue(mapper.readTree(p).get("pad").asText().chars().allMatch(c -> c == 'x'));
    }

    @Test
    void tooSmallSizeGivesUnpaddedPayload() throws Exception {
        String p = Payloads.payload(0, 0, 1, 10);
        assertEquals("{\"p\":0,\"s\":0,\"t\":1,\"pad\":\"\"}", p);
        mapper.readTree(p);
    }

    @Test
    void transactionIdsAndOwnership() throws Exception {
        assertEquals("run1-2-99", Payloads.transactionId("run1", 2, 99));
        var st = Payloads.stamp(mapper.readTree(Payloads.payload(2, 99, 5, 64)));
        assertTrue(Payloads.ours("run1-2-99", "run1", st));
        assertFalse(Payloads.ours("run0-2-99", "run1", st));
        assertFalse(Payloads.ours(null, "run1", st));
        assertNull(Payloads.stamp(mapper.readTree("{\"hello\":1}")));
        assertNull(Payloads.stamp(mapper.readTree("\"text\"")));
        assertNull(Payloads.stamp(null));
    }
}
