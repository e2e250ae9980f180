package io.queen.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.queen.config.QueenConfig;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The counters without a broker: the label cap, exact drains under concurrent recording, lag and parked peaks. */
class OpsMeterTest {
    static final UUID T = UUID.fromString("00000000-0000-0000-0000-000000000001");
    static final UUID T2 = UUID.fromString("00000000-0000-0000-0000-00000000000b");

    static OpsMeter meter(int maxQueues) {
        return new OpsMeter(config("maxQueues", maxQueues));
    }

    /** A configuration whose {@code metrics()} answers {@code setting} with {@code value}, and nothing else. */
    static QueenConfig config(String setting, Object value) {
        QueenConfig.Metrics metrics = (QueenConfig.Metrics) Proxy.newProxyInstance(OpsMeterTest.class.getClassLoader(),
                new Class<?>[] {QueenConfig.Metrics.class}, (p, m, a) -> {
                    if (m.getName().equals(setting)) {
                        return value;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        QueenConfig config = (QueenConfig) Proxy.newProxyInstance(OpsMeterTest.class.getClassLoader(),
                new Class<?>[] {QueenConfig.class}, (p, m, a) -> switch (m.getName()) {
                    case "metrics" -> metrics;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return config;
    }

    static Map<String, long[]> byQueue(List<OpsMeter.Sample> samples) {
        Map<String, long[]> out = new HashMap<>();
        samples.forEach(s -> out.put(s.queue(), s.values()));
        return out;
    }

    @Test
    void twoTenantsQueuesOfOneNameHaveTheirOwnMeters() {
        OpsMeter m = meter(10);
        m.queue(T, "orders").add(OpsMeter.PUSH_MESSAGES, 1);
        m.queue(T2, "orders").add(OpsMeter.PUSH_MESSAGES, 5);
        assertEquals(2, m.trackedQueues());
        List<OpsMeter.Sample> s = m.drain();
        assertEquals(3, s.size(), "one sample per (tenant, queue) and the broker totals");
        for (OpsMeter.Sample x : s) {
            if (x.queue() != null) {
                assertEquals(x.tenant().equals(T) ? 1 : 5, x.values()[OpsMeter.PUSH_MESSAGES]);
            }
        }
        m.forget(T2, "orders");
        assertEquals(1, m.trackedQueues(), "deleting one tenant's queue leaves the other's meter");
        assertEquals(T, m.queue(T, "orders").tenant());
    }

    @Test
    void queuesBeyondTheCapAreSummedUnderOther() {
        OpsMeter m = meter(2);
        m.queue(T, "a").add(OpsMeter.PUSH_MESSAGES, 1);
        m.queue(T, "b").add(OpsMeter.PUSH_MESSAGES, 2);
        m.queue(T, "c").add(OpsMeter.PUSH_MESSAGES, 3);
        m.queue(T, "d").add(OpsMeter.PUSH_MESSAGES, 4);
        assertSame(m.queue(T, "c"), m.queue(T, "d"));
        assertEquals(OpsMeter.OTHER, m.queue(T, "c").queue());
        assertEquals(2, m.trackedQueues());
        m.unattributed().increment(OpsMeter.POP_EMPTY);
        Map<String, long[]> s = byQueue(m.drain());
        assertEquals(4, s.size(), "a, b, _other and the broker totals");
        assertEquals(7, s.get(OpsMeter.OTHER)[OpsMeter.PUSH_MESSAGES]);
        assertEquals(10, s.get(null)[OpsMeter.PUSH_MESSAGES], "broker totals sum everything");
        assertEquals(1, s.get(null)[OpsMeter.POP_EMPTY], "unattributed activity counts for the broker only");
        Map<String, long[]> again = byQueue(m.drain());
        assertNull(again.get(OpsMeter.OTHER), "an idle _other is not reported");
        assertEquals(0, again.get("a")[OpsMeter.PUSH_MESSAGES], "a drain resets");
    }

    @Test
    void aDeletedQueueFreesItsLabelAndItsLastCountsReachTheBrokerTotals() {
        OpsMeter m = meter(1);
        OpsMeter.QueueMeter a = m.queue(T, "a");
        m.forget(T, "a");
        a.add(OpsMeter.ACK_MESSAGES, 5);  // a straggler that still held the meter
        assertEquals("b", m.queue(T, "b").queue(), "the label is free again");
        Map<String, long[]> s = byQueue(m.drain());
        assertNull(s.get("a"));
        assertEquals(5, s.get(null)[OpsMeter.ACK_MESSAGES]);
    }

    @Test
    void lagAndParkedPeaks() {
        OpsMeter m = meter(10);
        OpsMeter.QueueMeter q = m.queue(T, "q");
        q.delivered(10, 100);
        q.delivered(30, 500);
        q.delivered(5, -3);  // clock skew between brokers: never a negative lag
        q.parked();
        q.parked();
        q.unparked();
        long[] v = byQueue(m.drain()).get("q");
        assertEquals(45, v[OpsMeter.POP_MESSAGES]);
        assertEquals(45, v[OpsMeter.LAG_COUNT]);
        assertEquals(10 * 100 + 30 * 500, v[OpsMeter.LAG_SUM_MS]);
        assertEquals(500, v[OpsMeter.LAG_MAX_MS]);
        assertEquals(2, v[OpsMeter.PARKED], "the peak of the interval");
        long[] next = byQueue(m.drain()).get("q");
        assertEquals(1, next[OpsMeter.PARKED], "still parked: the next interval starts from the current count");
        assertEquals(0, next[OpsMeter.LAG_MAX_MS]);
    }

    @Test
    void concurrentRecordingIsDrainedExactlyOnce() throws Exception {
        OpsMeter m = meter(1000);
        int threads = 4;
        int perThread = 500_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        try {
            List<Future<?>> fs = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String queue = "q" + (t % 2);
                fs.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        m.queue(T, queue).increment(OpsMeter.PUSH_MESSAGES);
                    }
                    return null;
                }));
            }
            start.countDown();
            long drained = 0;
            while (!done.get()) {
                drained += byQueue(m.drain()).get(null)[OpsMeter.PUSH_MESSAGES];
                done.set(fs.stream().allMatch(Future::isDone));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            drained += byQueue(m.drain()).get(null)[OpsMeter.PUSH_MESSAGES];
            assertEquals((long) threads * perThread, drained, "no increment lost or counted twice");
        } finally {
            pool.shutdownNow();
        }
    }
}
