package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Recorder;

/** Applications in their own JVMs: killed mid-batch, and two instances sharing one consumer group. */
class ProcessKillIT extends BrokerTest {

    private static Map<String, String> consumerConfig(String queue, String... extra) {
        Map<String, String> m = new LinkedHashMap<>(channel("mp.messaging.incoming.in", "queue", queue,
                "batch-size", "10", "wait-timeout", "1000"));
        for (int i = 0; i < extra.length; i += 2) {
            m.put(extra[i], extra[i + 1]);
        }
        return m;
    }

    private static void pushIds(String queue, int partitions, int perPartition) {
        for (int p = 0; p < partitions; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < perPartition; i++) {
                payloads.add(Map.of("id", p * 10_000 + i));
            }
            broker.push(queue, "p" + p, payloads, null);
        }
    }

    @Test
    void consumerKilledMidBatchLosesNothing() {
        broker.configure("kill-q", Map.of("leaseTime", 3));
        pushIds("kill-q", 2, 100);
        List<Recorder.Entry> first;
        try (AppProcess a = AppProcess.start("kill-a", consumerConfig("kill-q", "app.delay.ms", "20"), Consumer.class)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> a.entries().size() >= 50);
            a.kill();
            first = a.entries();
        }
        assertTrue(first.size() < 200, "killed before the end");
        try (AppProcess b = AppProcess.start("kill-b", consumerConfig("kill-q"), Consumer.class)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                Set<String> seen = new HashSet<>();
                first.forEach(e -> seen.add(e.id()));
                b.entries().forEach(e -> seen.add(e.id()));
                return seen.size() == 200;
            });
            List<Recorder.Entry> second = b.entries();
            assertEquals(second.size(), new HashSet<>(second.stream().map(Recorder.Entry::id).toList()).size(),
                    "the surviving instance processed nothing twice");
            // Only messages whose acks were not yet committed at the kill are processed again: at most the
            // leased batches of both partitions.
            Set<String> again = new HashSet<>(first.stream().map(Recorder.Entry::id).toList());
            again.retainAll(second.stream().map(Recorder.Entry::id).toList());
            assertTrue(again.size() <= 2 * 10 + 25, "redelivered " + again.size() + " messages");
        }
    }

    @Test
    void twoInstancesInOneGroupShareThePartitions() {
        Map<String, String> config = consumerConfig("group-q", "mp.messaging.incoming.in.consumer-group", "workers",
                "mp.messaging.incoming.in.subscription-mode", "all", "mp.messaging.incoming.in.batch-size", "5",
                "app.delay.ms", "10");
        try (AppProcess a = AppProcess.start("group-a", config, Consumer.class);
                AppProcess b = AppProcess.start("group-b", config, Consumer.class)) {
            // pushed once both are up: on a loaded machine the second app can take longer to start than the first
            // needs to process everything, and the test is about sharing, not about start-up time
            pushIds("group-q", 6, 30);
            await().atMost(Duration.ofSeconds(90)).until(() -> a.entries().size() + b.entries().size() >= 180);
            Broker.sleep(1_500); // anything processed twice would show up now
            List<Recorder.Entry> all = new ArrayList<>(a.entries());
            all.addAll(b.entries());
            assertEquals(180, all.size(), "every message processed exactly once in the group");
            assertEquals(180, new HashSet<>(all.stream().map(Recorder.Entry::id).toList()).size());
            assertTrue(!a.entries().isEmpty() && !b.entries().isEmpty(), "both instances got work: "
                    + a.entries().size() + " / " + b.entries().size());
            Map<String, List<Recorder.Entry>> byPartition = all.stream()
                    .collect(Collectors.groupingBy(Recorder.Entry::partition, HashMap::new, Collectors.toList()));
            for (var e : byPartition.entrySet()) {
                // CLOCK_MONOTONIC: System.nanoTime is comparable across processes of one Linux machine.
                List<Recorder.Entry> seq = e.getValue().stream()
                        .sorted(Comparator.comparingLong(Recorder.Entry::startNanos)).toList();
                for (int i = 1; i < seq.size(); i++) {
                    assertTrue(seq.get(i).startNanos() >= seq.get(i - 1).endNanos(),
                            e.getKey() + ": processed concurrently by " + seq.get(i - 1).instance() + " and "
                                    + seq.get(i).instance());
                    assertTrue(Integer.parseInt(seq.get(i).id()) > Integer.parseInt(seq.get(i - 1).id()),
                            e.getKey() + " out of order");
                }
            }
        }
    }
}
