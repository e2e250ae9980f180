package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;

/**
 * Per-partition order under parallelism: with {@code concurrency=3} the channel runs three consumers; different
 * partitions are processed in parallel, messages of one partition strictly one after the other in offset order.
 */
class OrderingIT extends BrokerTest {

    @Test
    void partitionsRunInParallelButEachInOrder() {
        int partitions = 4, perPartition = 25;
        for (int p = 0; p < partitions; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < perPartition; i++) {
                payloads.add(Map.of("id", p * 1000 + i));
            }
            broker.push("ordered", "p" + p, payloads, null);
        }
        System.setProperty("app.delay.ms", "15");
        try {
            app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "ordered", "concurrency", "3",
                    "batch-size", "5", "wait-timeout", "1000"), Consumer.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> Recorder.ENTRIES.size() >= partitions * perPartition);
        } finally {
            System.clearProperty("app.delay.ms");
        }
        List<Recorder.Entry> all = List.copyOf(Recorder.ENTRIES);
        assertEquals(partitions * perPartition, all.size());
        assertEquals(partitions * perPartition, new HashSet<>(all.stream().map(Recorder.Entry::id).toList()).size(),
                "no message processed twice");
        for (int p = 0; p < partitions; p++) {
            String name = "p" + p;
            List<Recorder.Entry> mine = all.stream().filter(e -> e.partition().equals(name))
                    .sorted(Comparator.comparingLong(Recorder.Entry::startNanos)).toList();
            for (int i = 1; i < mine.size(); i++) {
                Recorder.Entry prev = mine.get(i - 1), cur = mine.get(i);
                assertTrue(Integer.parseInt(cur.id()) > Integer.parseInt(prev.id()), name + " out of order at " + i);
                assertTrue(cur.startNanos() >= prev.endNanos(), name + ": two messages processed at once");
            }
        }
        assertTrue(maxOverlap(all) >= 2, "partitions were never processed in parallel");
    }

    /** Highest number of messages being processed at the same moment. */
    static int maxOverlap(List<Recorder.Entry> entries) {
        List<long[]> events = new ArrayList<>();
        for (Recorder.Entry e : entries) {
            events.add(new long[] { e.startNanos(), 1 });
            events.add(new long[] { e.endNanos(), -1 });
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0, max = 0;
        for (long[] ev : events) {
            now += (int) ev[1];
            max = Math.max(max, now);
        }
        return max;
    }
}
