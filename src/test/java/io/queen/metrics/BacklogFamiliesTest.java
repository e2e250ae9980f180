package io.queen.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The group label cap: 0 and more accepted, a negative value refused with a message naming the setting. */
class BacklogFamiliesTest {
    @Test
    void aNegativeGroupCapIsRefusedByName() {
        assertEquals(0, BacklogFamilies.maxGroups(OpsMeterTest.config("maxGroups", 0)));
        assertEquals(100, BacklogFamilies.maxGroups(OpsMeterTest.config("maxGroups", 100)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BacklogFamilies.maxGroups(OpsMeterTest.config("maxGroups", -1)));
        assertTrue(e.getMessage().contains("QUEEN_METRICS_MAX_GROUPS") && e.getMessage().contains("-1"),
                e.getMessage());
    }
}
