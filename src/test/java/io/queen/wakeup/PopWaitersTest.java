package io.queen.wakeup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Wake-up signals of queues nobody waits on are bounded (names of queues that exist nowhere, popped or fetched,
 * cannot grow them forever) without losing a wake-up of a waiting pop or repeating a write stamp.
 */
class PopWaitersTest {
    private static final int LIMIT = 8;
    private final UUID tenant = UUID.randomUUID();
    private final PopWaiters waiters = new PopWaiters(null, null, LIMIT);

    /** Pops of names nobody pushes to, one after another: what the broker keeps stays within twice the limit. */
    @Test
    void signalsOfQueuesNobodyWaitsOnStayBounded() {
        for (int i = 0; i < 10_000; i++) {
            waiters.release(waiters.hold(tenant, "missing-" + i));
            assertTrue(waiters.trackedQueues() <= LIMIT + 1, "tracked " + waiters.trackedQueues() + " at " + i);
        }
        for (int i = 0; i < 10_000; i++) {
            waiters.queue(tenant, "known-" + i);
            assertTrue(waiters.trackedQueues() <= LIMIT + 1, "tracked " + waiters.trackedQueues() + " at " + i);
        }
    }

    /** A pop parked on its queue while many other names come and go is still the one a push to that queue wakes. */
    @Test
    void aHeldSignalSurvivesAndIsWoken() throws Exception {
        WakeSignal parked = waiters.hold(tenant, "orders");
        long seen = parked.generation();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean woken = new AtomicBoolean();
        Thread pop = new Thread(() -> {
            waiting.countDown();
            try {
                woken.set(parked.awaitChange(seen, TimeUnit.SECONDS.toNanos(30)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        pop.start();
        waiting.await();
        for (int i = 0; i < 1_000; i++) {
            waiters.release(waiters.hold(tenant, "missing-" + i));
        }
        assertSame(parked, waiters.queue(tenant, "orders"), "the held signal was dropped");
        waiters.wake(tenant, "orders");
        pop.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(woken.get(), "the parked pop was not woken");
        waiters.release(parked);
    }

    /**
     * Held twice, released once: still held. Released by both, it may be dropped, and a stamp read from the new
     * signal differs from every stamp read before, so a reader that kept one goes to the database.
     */
    @Test
    void holdsAreCountedAndAStampNeverRepeatsAcrossADrop() {
        WakeSignal a = waiters.hold(tenant, "q");
        WakeSignal b = waiters.hold(tenant, "q");
        assertSame(a, b);
        long before = waiters.writeStamp(tenant, "q", "p");
        assertEquals(before, waiters.writeStampIfTracked(tenant, "q", "p"), "nothing happened: the stamp stands");
        waiters.release(a);
        for (int i = 0; i < 1_000; i++) {
            waiters.release(waiters.hold(tenant, "missing-" + i));
        }
        assertSame(b, waiters.queue(tenant, "q"), "dropped while one hold remained");
        waiters.release(b);
        for (int i = 0; i < 1_000; i++) {
            waiters.release(waiters.hold(tenant, "missing-more-" + i));
        }
        assertEquals(-1, waiters.writeStampIfTracked(tenant, "q", "p"), "an unheld signal outlived the flood");
        assertNotEquals(before, waiters.writeStamp(tenant, "q", "p"), "a stamp repeated across a drop");
    }

    /** The stamp moves on a wake-up other than a hot-list one, and on this broker's push to the partition. */
    @Test
    void theStampMovesOnWakeUpsAndWrites() {
        long s0 = waiters.writeStamp(tenant, "q", "p");
        waiters.hotListed(tenant, "q");
        assertEquals(s0, waiters.writeStamp(tenant, "q", "p"));
        waiters.wake(tenant, "q");
        long s1 = waiters.writeStamp(tenant, "q", "p");
        assertNotEquals(s0, s1);
        waiters.written(tenant, "q", "p");
        assertNotEquals(s1, waiters.writeStamp(tenant, "q", "p"));
    }
}
