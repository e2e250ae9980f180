package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class Uuid7Test {

    @Test
    void layoutAndTimestamp() {
        long before = System.currentTimeMillis();
        UUID id = Uuid7.next();
        long after = System.currentTimeMillis();
        assertEquals(7, id.version());
        assertEquals(2, id.variant());
        long ts = Uuid7.timestampMillis(id);
        assertTrue(ts >= before - 1000 && ts <= after + 1000, ts + " not within 1 s of " + before);
        assertEquals(ts, id.getMostSignificantBits() >>> 16);
    }

    @Test
    void strictlyIncreasingFromOneThread() {
        UUID prev = Uuid7.next();
        for (int i = 0; i < 100_000; i++) {
            UUID next = Uuid7.next();
            assertTrue(Uuid7.compare(prev, next) < 0, prev + " !< " + next);
            assertEquals(7, next.version());
            assertEquals(2, next.variant());
            prev = next;
        }
        assertTrue(Math.abs(Uuid7.timestampMillis(prev) - System.currentTimeMillis()) < 1000, "clock drift after a burst");
    }

    @Test
    void distinctAcrossThreads() throws Exception {
        int threads = 4;
        int perThread = 25_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<UUID>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Callable<List<UUID>> task = () -> {
                    go.await();
                    List<UUID> ids = new ArrayList<>(perThread);
                    for (int i = 0; i < perThread; i++) {
                        ids.add(Uuid7.next());
                    }
                    return ids;
                };
                futures.add(pool.submit(task));
            }
            go.countDown();
            Set<UUID> all = new HashSet<>();
            for (Future<List<UUID>> f : futures) {
                List<UUID> ids = f.get();
                for (int i = 1; i < ids.size(); i++) {
                    assertTrue(Uuid7.compare(ids.get(i - 1), ids.get(i)) < 0, "per-thread order");
                }
                all.addAll(ids);
            }
            assertEquals(threads * perThread, all.size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void unsignedCompareAndMinForMillis() {
        UUID low = new UUID(0x7FFF_FFFF_FFFF_FFFFL, 0);
        UUID high = new UUID(0x8000_0000_0000_0000L, 0);
        assertTrue(Uuid7.compare(low, high) < 0); // UUID.compareTo would say the opposite
        assertTrue(Uuid7.compare(new UUID(1, 1), new UUID(1, -1)) < 0);
        assertEquals(0, Uuid7.compare(low, new UUID(low.getMostSignificantBits(), 0)));

        long now = System.currentTimeMillis();
        UUID floor = Uuid7.minForMillis(now - 5);
        assertEquals(7, floor.version());
        assertEquals(2, floor.variant());
        assertEquals(now - 5, Uuid7.timestampMillis(floor));
        assertTrue(Uuid7.compare(floor, Uuid7.next()) < 0);
        assertTrue(Uuid7.compare(Uuid7.next(), Uuid7.minForMillis(now + 60_000)) < 0);
        assertThrows(IllegalArgumentException.class, () -> Uuid7.minForMillis(-1));
        assertThrows(IllegalArgumentException.class, () -> Uuid7.timestampMillis(UUID.randomUUID()));
    }

    @Test
    void idsOfOneBatchCompressAsASequence() {
        // the ids of one push share a segment: with rand_b counting up they cost a few bytes each after zstd;
        // with 62 random bits each they cost about 10
        List<Frame> counted = new ArrayList<>();
        List<Frame> random = new ArrayList<>();
        java.util.Random rnd = new java.util.Random(1);
        for (int i = 0; i < 100; i++) {
            UUID id = Uuid7.next();
            byte[] payload = ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            counted.add(Frame.of(id, "t-" + i, payload));
            UUID r = new UUID(id.getMostSignificantBits(), 0x8000_0000_0000_0000L | (rnd.nextLong() >>> 2));
            random.add(Frame.of(r, "t-" + i, payload));
        }
        int saved = SegmentCodec.encode(random).length - SegmentCodec.encode(counted).length;
        assertTrue(saved >= 500, "at least 5 bytes per id saved, was " + saved + " for 100 ids");
        for (int i = 1; i < 100; i++) {
            assertEquals(1, counted.get(i).messageId().getLeastSignificantBits()
                    - counted.get(i - 1).messageId().getLeastSignificantBits(), "rand_b counts up within a batch");
        }
    }
}
