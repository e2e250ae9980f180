package io.queen.pop;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Queue-level pops try partitions this broker just wrote before ranking the whole queue; what they deliver must
 * be exactly what the discovery scan would: every message once, in order per partition, and partitions the hot
 * list does not know (or cannot claim) still found.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class HotPartitionsTest {
    static final String HOT = "queen_pop_hot_claims_total";

    static List<String> txns(JsonNode popped) {
        return messages(popped).stream().map(m -> m.get("transactionId").asText()).toList();
    }

    @Test
    void partitionsTheListDoesNotKnowOrCannotClaimAreStillFound() {
        // written before any queue-level pop of the queue: not in the list, the scan finds it
        pushN("hp-fallback", "z", "z", 0, 2);
        JsonNode first = pop("/api/v1/pop/queue/hp-fallback?batch=10");
        assertEquals(List.of("z-0", "z-1"), txns(first));
        ackAll(first, "completed", null);

        // now tracked: y then x are remembered; y is leased by a pinned pop, so the hot claim on y comes back
        // empty and the next remembered partition (x) serves the pop
        pushN("hp-fallback", "y", "y", 0, 2);
        pushN("hp-fallback", "x", "x", 0, 2);
        JsonNode leasedY = pop("/api/v1/pop/queue/hp-fallback/partition/y?batch=10");
        assertEquals(List.of("y-0", "y-1"), txns(leasedY));
        double before = metric(HOT);
        JsonNode gotX = pop("/api/v1/pop/queue/hp-fallback?batch=10");
        assertEquals(List.of("x-0", "x-1"), txns(gotX));
        assertEquals(1, metric(HOT) - before, "served by a targeted claim");
        ackAll(gotX, "completed", null);
        assertNull(pop("/api/v1/pop/queue/hp-fallback?batch=10"), "y is leased, nothing else pending");
        ackAll(leasedY, "completed", null);
        pushN("hp-fallback", "y", "y", 2, 1);
        assertEquals(List.of("y-2"), txns(pop("/api/v1/pop/queue/hp-fallback?batch=10")));
    }

    @Test
    void concurrentQueueLevelConsumersGetEachMessageOnceInOrder() throws Exception {
        assertNull(pop("/api/v1/pop/queue/hp-conc?batch=10"), "first contact: the group is tracked from now on");
        double before = metric(HOT);
        int partitions = 12;
        int perPartition = 120;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicBoolean producing = new AtomicBoolean(true);
        List<Future<?>> producers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            int half = p;
            producers.add(pool.submit(() -> {
                for (int k = 0; k < perPartition; k += 10) {
                    for (int i = half; i < partitions; i += 2) {
                        pushN("hp-conc", "p" + i, "p" + i, k, 10);
                    }
                }
                return null;
            }));
        }
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        ConcurrentHashMap<String, Integer> next = new ConcurrentHashMap<>();
        List<Future<?>> consumers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            consumers.add(pool.submit(() -> {
                int empty = 0;
                while (producing.get() || empty < 3) {
                    JsonNode p = pop("/api/v1/pop/queue/hp-conc?batch=25&wait=true&timeout=300");
                    if (p == null) {
                        empty++;
                        continue;
                    }
                    empty = 0;
                    for (JsonNode m : messages(p)) {
                        String txn = m.get("transactionId").asText();
                        if (!seen.add(txn)) {
                            duplicates.incrementAndGet();
                        }
                        // one lease per (partition, group): a partition's batches are delivered one after another
                        String part = m.get("partition").asText();
                        int n = m.get("data").get("n").asInt();
                        Integer expected = next.getOrDefault(part, 0);
                        if (n != expected) {
                            outOfOrder.incrementAndGet();
                        }
                        next.put(part, n + 1);
                    }
                    for (JsonNode r : ackAll(p, "completed", null)) {
                        assertTrue(r.get("success").asBoolean(), r.toString());
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : producers) {
            f.get();
        }
        producing.set(false);
        for (Future<?> f : consumers) {
            f.get();
        }
        pool.shutdown();
        assertEquals(partitions * perPartition, seen.size(), "every message delivered");
        assertEquals(0, duplicates.get());
        assertEquals(0, outOfOrder.get());
        assertNotNull(next.get("p0"));
        assertTrue(metric(HOT) - before > 0, "some pops were served from the hot list");
    }
}
