package io.queen.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cap of {@link CappedMap} and what an insert that empties it keeps. */
class CappedMapTest {
    /** A map of cap {@code cap} holding {@code n} entries {@code k<i> -> i}. */
    private static CappedMap<String, Integer> holding(int cap, int n) {
        CappedMap<String, Integer> m = new CappedMap<>(cap);
        for (int i = 0; i < n; i++) {
            m.put("k" + i, i);
        }
        return m;
    }

    @Test
    void neverHoldsMoreThanItsCap() {
        CappedMap<Integer, String> m = new CappedMap<>(10);
        for (int i = 0; i < 1000; i++) {
            m.put(i, "v" + i);
            assertTrue(m.size() <= 10, "after " + i + ": " + m.size());
            m.putIfAbsent(-i - 1, "w" + i);
            assertTrue(m.size() <= 10, "after " + i + ": " + m.size());
        }
    }

    @Test
    void anInsertThatFindsItFullEmptiesItAndKeepsItsOwnEntry() {
        CappedMap<String, Integer> m = holding(3, 3);
        assertEquals(3, m.size(), "filled up to the cap without a clear");
        m.put("d", 4);
        assertEquals(1, m.size());
        assertEquals(4, m.get("d"), "the caller reads back what it just stored");
        assertNull(m.get("k0"));
    }

    @Test
    void putIfAbsentOnAFullMapPublishesTheNewEntry() {
        CappedMap<String, Integer> m = holding(2, 2);
        // a caller publishing its entry for others to wait on learns it was published, and it stays
        assertNull(m.putIfAbsent("k0", 9));
        assertEquals(9, m.get("k0"));
        assertEquals(9, m.putIfAbsent("k0", 10), "below the cap, an existing entry is kept");
    }

    @Test
    void aBatchIsKeptTogether() {
        CappedMap<String, Integer> m = holding(4, 3);
        Map<String, Integer> batch = new HashMap<>(Map.of("x", 10, "y", 20));
        m.putAll(batch);
        assertEquals(batch.size(), m.size(), "emptied before the batch, none of the batch lost");
        assertEquals(10, m.get("x"));
        assertEquals(20, m.get("y"));

        Map<String, Integer> large = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            large.put("big" + i, i);
        }
        m.putAll(large);
        assertEquals(6, m.size(), "a batch larger than the cap is kept whole");
        m.put("next", 1);
        assertEquals(1, m.size(), "the next insert empties it");
    }

    @Test
    void replaceAndRemovalNeverEmptyIt() {
        CappedMap<String, Integer> m = holding(2, 2);
        assertTrue(m.replace("k0", 0, 5));
        assertEquals(2, m.size());
        m.remove("k0", 0);
        assertEquals(5, m.get("k0"), "removed only while its value is the one expected");
        m.removeKeysIf(k -> k.equals("k1"));
        m.remove("k0");
        assertEquals(0, m.size());
    }
}
