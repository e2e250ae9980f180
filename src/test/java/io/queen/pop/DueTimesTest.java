package io.queen.pop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.queen.wakeup.WakeSignal;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * When a parked pop asks the database for its due time, on a clock the test moves: once per signal generation, and
 * for the generations that follow within a second, the earlier answer capped at a second after it was asked.
 */
class DueTimesTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final UUID TENANT = UUID.randomUUID();
    private static final PopRequest POP = new PopRequest("q", null, null, null, 8, true, 30_000, "__QUEUE_MODE__",
            false, "all", null, 1);

    /** A clock only the test moves. */
    static final class ManualClock implements PopClock {
        long now = 1_000_000_000L;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public long millis() {
            return now / 1_000_000;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public boolean awaitChange(WakeSignal signal, long seen, long nanos) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sleep(long nanos) {
            throw new UnsupportedOperationException();
        }
    }

    /** The due query, answering what the test sets and counting the calls. */
    static final class ScriptedStore extends PopStore {
        final AtomicInteger asked = new AtomicInteger();
        double answerMs;

        ScriptedStore() {
            super(null);
        }

        @Override
        public double nextDueMs(UUID tenant, String queue, String partition, String namespace, String task,
                String group) {
            asked.incrementAndGet();
            return answerMs;
        }
    }

    private final ManualClock clock = new ManualClock();
    private final ScriptedStore store = new ScriptedStore();
    private final DueTimes dues = new DueTimes(store, clock, new SimpleMeterRegistry());
    private final long deadline = clock.now + TimeUnit.SECONDS.toNanos(30);

    @Test
    void oneQueryServesItsGenerationAndTheNextOnesWithinASecondCappedThere() throws Exception {
        store.answerMs = 300_000;  // a lease expiring in five minutes
        long asked = clock.now;
        assertEquals(asked + 300_000 * MS, dues.next(TENANT, POP, 1, deadline));
        assertEquals(asked + 300_000 * MS, dues.next(TENANT, POP, 1, deadline), "the same generation: its answer");
        assertEquals(1, store.asked.get());

        // pushes and acks move the generation: within the second the answer serves, at most a second after it
        for (long generation = 2; generation < 6; generation++) {
            clock.now += 200 * MS;
            assertEquals(asked + DueTimes.REUSE_NANOS, dues.next(TENANT, POP, generation, deadline));
            assertTrue(dues.knownEmpty(TENANT, POP, generation), "kept for the generation it served");
        }
        assertEquals(1, store.asked.get());

        clock.now = asked + DueTimes.REUSE_NANOS;  // a second after it was asked: asked anew
        assertEquals(clock.now + 300_000 * MS, dues.next(TENANT, POP, 6, deadline));
        assertEquals(2, store.asked.get());
    }

    @Test
    void anEarlierAnswerNeverServesOnceItHasPassedOrWhenItWasNever() throws Exception {
        store.answerMs = 100;  // a lease expiring in 100 ms
        long asked = clock.now;
        assertEquals(asked + 100 * MS, dues.next(TENANT, POP, 1, deadline));
        clock.now += 50 * MS;
        assertEquals(asked + 100 * MS, dues.next(TENANT, POP, 2, deadline), "still ahead: it serves");
        clock.now += 60 * MS;
        store.answerMs = 250;
        assertEquals(clock.now + 250 * MS, dues.next(TENANT, POP, 3, deadline), "passed: asked anew");
        assertEquals(2, store.asked.get());

        assertEquals(clock.now + 250 * MS, dues.next(TENANT, POP, 4, deadline), "just asked: it serves");
        assertEquals(2, store.asked.get());

        clock.now += DueTimes.REUSE_NANOS;
        store.answerMs = -1;  // nothing pending: only a wake-up can help
        assertEquals(Long.MAX_VALUE, dues.next(TENANT, POP, 4, deadline));
        clock.now += 10 * MS;
        store.answerMs = 1_000;  // a delayed message pushed since: counted from now
        assertEquals(clock.now + 1_000 * MS, dues.next(TENANT, POP, 5, deadline), "never is asked anew");
        assertEquals(4, store.asked.get());
        assertFalse(dues.knownEmpty(TENANT, POP, 6), "a generation nobody has asked for is not known empty");
    }
}
