package io.queen.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The live figures read a meter's cumulative counts while recording and the per-minute drain go on: the counts
 * never go backwards and, once recording stops, equal what was recorded, however the drains fell.
 */
class OpsMeterCumulativeTest {
    @Test
    void cumulativeCountsAreMonotoneAndExactUnderConcurrentDrains() throws Exception {
        OpsMeter m = OpsMeterTest.meter(10);
        OpsMeter.QueueMeter q = m.queue(OpsMeterTest.T, "orders");
        int threads = 4;
        int perThread = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    q.increment(OpsMeter.PUSH_MESSAGES);
                }
            });
            w.start();
            writers.add(w);
        }
        AtomicBoolean running = new AtomicBoolean(true);
        long[] drained = new long[1];
        Thread drainer = new Thread(() -> {
            while (running.get()) {
                for (OpsMeter.Sample s : m.drain()) {
                    if ("orders".equals(s.queue())) {
                        drained[0] += s.values()[OpsMeter.PUSH_MESSAGES];
                    }
                }
            }
        });
        drainer.start();
        start.countDown();
        long last = 0;
        boolean writing = true;
        while (writing) {
            writing = writers.stream().anyMatch(Thread::isAlive);
            long now = q.cumulative()[OpsMeter.PUSH_MESSAGES];
            assertTrue(now >= last, "went back from " + last + " to " + now);
            last = now;
        }
        running.set(false);
        drainer.join();
        long total = (long) threads * perThread;
        assertEquals(total, q.cumulative()[OpsMeter.PUSH_MESSAGES], "nothing lost or counted twice");
        for (OpsMeter.Sample s : m.drain()) {
            if ("orders".equals(s.queue())) {
                drained[0] += s.values()[OpsMeter.PUSH_MESSAGES];
            }
        }
        assertEquals(total, drained[0], "the drains still see every increment once");
    }
}
