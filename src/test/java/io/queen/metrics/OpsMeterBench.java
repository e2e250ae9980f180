package io.queen.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Cost of the push path's recording (not a regression test; off unless {@code -Dmetrics.bench=true}):
 *
 * <pre>
 * JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -q test -Dtest=OpsMeterBench -Dmetrics.bench=true
 * </pre>
 *
 * What {@code PushResource} records for a push request of 100 messages (two meter lookups, one request count, one
 * add per message), from 1 and 4 threads sharing 8 hot queues; reports thread CPU time per message (CPU time, not
 * wall time, so that other load on the machine distorts it less). Also checks every add was drained exactly once.
 */
@EnabledIfSystemProperty(named = "metrics.bench", matches = "true")
class OpsMeterBench {
    static final java.util.UUID T = java.util.UUID.fromString("00000000-0000-0000-0000-000000000001");
    @Test
    void cpuPerRecordedMessage() throws Exception {
        OpsMeter meter = OpsMeterTest.meter(1000);
        String[] queues = new String[8];
        for (int i = 0; i < queues.length; i++) {
            queues[i] = "bench-queue-" + i;
        }
        int requests = 1_000_000;
        for (int threads : new int[] {1, 4}) {
            for (int round = 0; round < 4; round++) {
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<Long>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    fs.add(pool.submit(() -> {
                        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                        long cpu0 = mx.getCurrentThreadCpuTime();
                        for (int r = 0; r < requests; r++) {
                            String q = queues[(r + id) % queues.length];
                            meter.queue(T, q).increment(OpsMeter.PUSH_REQUESTS);
                            OpsMeter.QueueMeter qm = meter.queue(T, q);
                            for (int k = 0; k < 100; k++) {
                                qm.increment(OpsMeter.PUSH_MESSAGES);
                            }
                        }
                        return mx.getCurrentThreadCpuTime() - cpu0;
                    }));
                }
                long cpu = 0;
                for (Future<Long> f : fs) {
                    cpu += f.get();
                }
                pool.shutdown();
                long messages = (long) threads * requests * 100;
                List<OpsMeter.Sample> drained = meter.drain();
                assertEquals(messages, drained.get(drained.size() - 1).values()[OpsMeter.PUSH_MESSAGES]);
                System.out.printf("threads=%d round=%d: %.2f ns CPU per message, %.0f ns per request of 100%n",
                        threads, round, (double) cpu / messages, (double) cpu / ((long) threads * requests));
            }
        }
    }
}
