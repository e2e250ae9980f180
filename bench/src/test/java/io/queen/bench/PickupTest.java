package io.queen.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PickupTest {

    /** Times after the Pickup's creation, as the run's are. */
    private final long T = System.nanoTime() + 1_000_000_000L;

    @Test
    void answerThenPopIsTheGapBetweenThem() {
        var p = new Pickup();
        p.answered(0, 7, T, true);
        p.popped(0, 7, T + 3_000_000, true);
        assertEquals(1, p.latency.getTotalCount());
        assertEquals(3_000, p.latency.getMaxValue(), 3_000 / 500);
        assertEquals(0, p.poppedFirst());
    }

    @Test
    void popBeforeTheAnswerCountsAsZeroAndIsCounted() {
        var p = new Pickup();
        p.popped(1, 0, T, true);
        p.answered(1, 0, T + 2_000_000, true);
        assertEquals(1, p.latency.getTotalCount());
        assertEquals(0, p.latency.getMaxValue());
        assertEquals(1, p.poppedFirst());
    }

    @Test
    void eachMessageCountsOnceAndOnlyItsOwnEnds() {
        var p = new Pickup();
        long far = Pickup.CHUNK + 5L;              // another chunk of the same producer
        p.answered(0, 5, T, true);
        p.answered(1, 5, T, true);                 // same sequence number, other producer
        p.answered(0, far, T, true);
        p.popped(0, 5, T + 1_000_000, true);
        p.popped(0, 5, T + 9_000_000, true);       // a redelivery: not a second pickup
        assertEquals(1, p.latency.getTotalCount());
        p.popped(0, far, T + 4_000_000, true);
        assertEquals(2, p.latency.getTotalCount());
        assertEquals(4_000, p.latency.getMaxValue(), 4_000 / 500);
        p.popped(1, 5, T + 1_000_000, false);      // met outside the measured window: not recorded
        assertEquals(2, p.latency.getTotalCount());
    }
}
