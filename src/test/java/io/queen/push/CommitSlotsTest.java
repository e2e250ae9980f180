package io.queen.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommitSlotsTest {
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final AtomicInteger overdue = new AtomicInteger();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aFreedSlotGoesToTheFirstInLineNotBackToThePool() {
        CommitSlots slots = new CommitSlots(2, 60_000, timer, overdue::incrementAndGet);
        List<String> granted = new ArrayList<>();
        Runnable a = () -> granted.add("a");
        Runnable b = () -> granted.add("b");
        assertTrue(slots.take(a));
        CommitSlots.Held first = slots.use();
        assertTrue(slots.take(b));
        CommitSlots.Held second = slots.use();
        assertFalse(slots.take(b), "both slots are in use");
        assertFalse(slots.take(a));
        assertFalse(slots.take(b), "asking again keeps one place in line");

        first.end();
        assertEquals(List.of("b"), granted, "first in line");
        assertEquals(0, slots.free(), "handed over, not freed");
        first.end();
        assertEquals(List.of("b"), granted, "a bundle's slot is given back once");

        second.end();
        assertEquals(List.of("b", "a"), granted, "b asked again but holds one place only");
        slots.giveBack();
        slots.giveBack();
        assertEquals(2, slots.free());
        assertEquals(0, overdue.get());
    }

    @Test
    void aCommitPastTheHoldLimitGivesItsSlotBackOnce() throws Exception {
        CommitSlots slots = new CommitSlots(1, 50, timer, overdue::incrementAndGet);
        CountDownLatch granted = new CountDownLatch(1);
        assertTrue(slots.take(() -> { }));
        CommitSlots.Held stalled = slots.use();
        assertFalse(slots.take(granted::countDown));
        assertTrue(granted.await(30, TimeUnit.SECONDS), "the stalled commit's slot was handed on");
        assertEquals(1, overdue.get());

        stalled.end();  // the stalled commit finishes later: it no longer holds a slot to give back
        assertEquals(0, slots.free(), "the slot is the waiter's");
        slots.giveBack();
        assertEquals(1, slots.free());
    }

    @Test
    void noLimitTakesAlways() {
        CommitSlots slots = new CommitSlots(0, 50, timer, overdue::incrementAndGet);
        for (int i = 0; i < 100; i++) {
            assertTrue(slots.take(() -> { }));
            slots.use().end();
        }
        slots.giveBack();
        assertEquals(0, overdue.get());
    }
}
