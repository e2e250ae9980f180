package io.queen.connector.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The reconnect back-off: doubles from the first pause to the cap, jitter only shortens a pause. */
class BackoffTest {

    @Test
    void nominalPausesDoubleUpToTheCap() {
        Backoff b = new Backoff(100, 1000);
        long[] expected = { 100, 200, 400, 800, 1000, 1000, 1000 };
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], b.nominal(i), "attempt " + i);
        }
        assertEquals(1000, b.nominal(Integer.MAX_VALUE), "no overflow on long outages");
    }

    @Test
    void jitterTakesAtMostAFifthAndSpreadsThePauses() {
        Backoff b = new Backoff(100, 1000);
        Set<Long> atCap = new HashSet<>();
        for (int attempt = 0; attempt < 12; attempt++) {
            for (int n = 0; n < 200; n++) {
                long d = b.delay(attempt);
                long nominal = b.nominal(attempt);
                assertTrue(d <= nominal && d >= nominal * 8 / 10, "attempt " + attempt + ": " + d);
                if (nominal == 1000) {
                    atCap.add(d);
                }
            }
        }
        assertTrue(atCap.size() > 20, "pauses at the cap are spread, not in lock-step: " + atCap.size());
    }

    @Test
    void aCapBelowTheFirstPauseIsRaisedToIt() {
        Backoff b = new Backoff(500, 100);
        assertEquals(500, b.maxMs());
        assertEquals(500, b.nominal(3));
    }
}
