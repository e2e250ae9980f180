package io.queen.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The caller-runs serial loop that replaced the shards' threads: exclusion, order, visibility, deferred work. */
class ShardLoopTest {

    /** One step of a submitting thread: its index and the step's number. */
    interface Step {
        void run(int thread, int n);
    }

    /** Runs {@code perThread} steps on each of {@code threads} threads released together; returns when all ended. */
    static void concurrently(int threads, int perThread, Step step) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    step.run(me, i);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
    }

    @Test
    void tasksFromManyThreadsRunOneAtATimeInEachSubmittersOrder() throws Exception {
        ShardLoop loop = new ShardLoop(Runnable::run);
        int threads = 8;
        int perThread = 20_000;
        AtomicInteger active = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        long[] plainCounter = new long[1];   // no synchronisation: only the loop's exclusion protects it
        List<List<Integer>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            seen.add(new ArrayList<>());     // each list touched only by loop tasks
        }
        concurrently(threads, perThread, (me, n) -> loop.execute(() -> {
            if (active.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            plainCounter[0]++;
            seen.get(me).add(n);
            active.decrementAndGet();
        }));
        // every execute() has returned, so every task has run (a submitter leaves only when the queue was empty
        // or another thread was draining it; the last drain runs until empty)
        loop.execute(() -> { });
        assertEquals(0, overlaps.get(), "two tasks ran at once");
        assertEquals((long) threads * perThread, plainCounter[0]);
        for (int t = 0; t < threads; t++) {
            List<Integer> s = seen.get(t);
            assertEquals(perThread, s.size());
            for (int i = 0; i < perThread; i++) {
                assertEquals(i, s.get(i), "submitter " + t + " out of order at " + i);
            }
        }
    }

    @Test
    void aTaskSubmittedFromATaskRunsAfterItOnTheSameDrain() {
        ShardLoop loop = new ShardLoop(Runnable::run);
        List<String> order = new ArrayList<>();
        Thread caller = Thread.currentThread();
        loop.execute(() -> {
            order.add("outer-start");
            loop.execute(() -> order.add(Thread.currentThread() == caller ? "inner-same-thread" : "inner-other"));
            order.add("outer-end");
        });
        assertEquals(List.of("outer-start", "outer-end", "inner-same-thread"), order);
    }

    @Test
    void deferredWorkGoesBackToTheDrainingThreadOrToTheOffloadExecutor() {
        List<String> offloaded = new ArrayList<>();
        ShardLoop loop = new ShardLoop(r -> offloaded.add("offloaded"));
        Runnable a = () -> { };
        Runnable b = () -> { };
        // one piece comes back to the caller, the rest is offloaded
        Runnable mine = loop.executeAndTake(() -> {
            loop.defer(a);
            loop.defer(b);
        });
        assertEquals(a, mine);
        assertEquals(List.of("offloaded"), offloaded);
        // nothing deferred: nothing to take
        assertNull(loop.executeAndTake(() -> { }));
        // plain execute offloads everything
        loop.execute(() -> loop.defer(a));
        assertEquals(List.of("offloaded", "offloaded"), offloaded);
    }

    @Test
    void noDeferredWorkIsLostUnderContention() throws Exception {
        AtomicInteger offloaded = new AtomicInteger();
        ShardLoop loop = new ShardLoop(r -> offloaded.incrementAndGet());
        int threads = 8;
        int perThread = 10_000;
        AtomicInteger taken = new AtomicInteger();
        concurrently(threads, perThread, (me, n) -> {
            if (loop.executeAndTake(() -> loop.defer(() -> { })) != null) {
                taken.incrementAndGet();
            }
        });
        assertEquals(threads * perThread, taken.get() + offloaded.get(), "every deferred piece is taken or offloaded");
    }

    @Test
    void aFailingTaskDoesNotStopTheLoop() {
        ShardLoop loop = new ShardLoop(Runnable::run);
        AtomicInteger ran = new AtomicInteger();
        loop.execute(() -> {
            throw new IllegalStateException("boom");
        });
        loop.execute(ran::incrementAndGet);
        assertEquals(1, ran.get());
    }
}
