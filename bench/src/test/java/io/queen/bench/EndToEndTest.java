package io.queen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole Queen path (driver, runner, verifier, report) against the in-process {@link FakeBroker}. */
class EndToEndTest {

    @TempDir
    Path tmp;

    private record Result(int code, String out, JsonNode json) {
        /** The first run's verification figures. */
        JsonNode verification() {
            return json.get("runs").get(0).get("verification");
        }
    }

    private Result run(FakeBroker broker, String... extra) throws Exception {
        Path json = tmp.resolve("r" + System.nanoTime() + ".json");
        List<String> args = new ArrayList<>(List.of("--url", broker.url(),
                "--pg-url", "jdbc:postgresql://127.0.0.1:1/none", "--pg-pids", "1",
                "--json", json.toString(), "--pop-wait-ms", "200"));
        args.addAll(List.of(extra));
        var bytes = new ByteArrayOutputStream();
        var ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = Main.run(args.toArray(String[]::new), ps, ps);
        String out = bytes.toString(StandardCharsets.UTF_8);
        return new Result(code, out, new ObjectMapper().readTree(json.toFile()));
    }

    /** Runs against a fake broker that injects {@code fault}; the run must fail (exit code 1). */
    private Result failedRun(FakeBroker.Fault fault, String... extra) throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            b.fault(fault);
            Result r = run(b, extra);
            assertEquals(1, r.code(), r.out());
            return r;
        }
    }

    @Test
    void smokeAgainstFakeBrokerVerifiesEverything() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--preset", "smoke", "--dedup-window", "60", "--retention");
            assertEquals(0, r.code(), r.out());
            assertTrue(r.out().contains("bench: 3000 verified, 0 lost, 0 duplicated, 0 out-of-order, 0 errors"), r.out());
            assertEquals(1, b.configures());
            JsonNode run = r.json().get("runs").get(0);
            assertEquals(3000, run.get("totals").get("pushed").asLong());
            assertEquals(3000, run.get("totals").get("acked").asLong());
            assertEquals("complete", run.get("phases").get("drainEnd").asText());
            assertEquals(100.0, run.get("segments").get("messagesPerSegment").asDouble(), 0.001);
            assertEquals(1.0, run.get("segments").get("segmentsPerCommit").asDouble(), 0.001);
            assertTrue(run.get("pushLatencyMicros").get("count").asLong() > 0);
            assertEquals(3000, run.get("deliveryLatencyMicros").get("count").asLong());
            assertTrue(run.get("storage").get("bytesPerMessage").isNull());
            assertTrue(run.get("cpu").get("brokerPid").asLong() > 0, "the fake broker's port is held by this JVM");
        }
    }

    @Test
    void groupsAutoAckWildcardAndOpenLoop() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--messages", "2000", "--warmup", "0", "--groups", "2", "--consumers", "2",
                    "--ack", "auto", "--wildcard", "--rate", "20000", "--push-batch", "50", "--partitions", "3");
            assertEquals(0, r.code(), r.out());
            JsonNode v = r.verification();
            assertEquals(2, v.get("groups").size());
            assertEquals(4000, v.get("verified").asLong());
        }
    }

    @Test
    void pacedProducersTakeEvenlySpreadTurns() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            // 4 producers, 10 messages a batch at 400 msg/s: each producer every 100 ms, producer p at p x 25 ms
            Result r = run(b, "--messages", "400", "--warmup", "0", "--producers", "4", "--consumers", "1",
                    "--push-batch", "10", "--rate", "400", "--partitions", "2");
            assertEquals(0, r.code(), r.out());
            long[] first = new long[4];
            for (JsonNode m : b.payloads()) {
                if (m.get("s").asLong() == 0) {
                    first[m.get("p").asInt()] = m.get("t").asLong();   // the batch's scheduled send time
                }
            }
            for (int p = 1; p < 4; p++) {
                assertEquals(p * 25_000_000L, first[p] - first[0], "producer " + p + "'s first turn after producer 0's");
            }
        }
    }

    @Test
    void arrivalBatchesCarryWhatArrivedSinceThePreviousPush() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            // one message a millisecond: fixed batches would be 3 pushes (128, 128, 44), arrivals make many small ones
            Result r = run(b, "--messages", "300", "--warmup", "0", "--producers", "1", "--consumers", "1",
                    "--push-batch", "128", "--rate", "1000", "--arrival-batches", "--partitions", "2");
            assertEquals(0, r.code(), r.out());
            List<Integer> sizes = b.pushSizes();
            assertEquals(300, sizes.stream().mapToInt(Integer::intValue).sum());
            assertTrue(sizes.size() >= 10, "pushes " + sizes);
            long[] t = new long[300];
            for (JsonNode m : b.payloads()) {
                t[m.get("s").asInt()] = m.get("t").asLong();
            }
            for (int s = 1; s < 300; s++) {
                assertEquals(s * 1_000_000L, t[s] - t[0], "message " + s + " stamped with its own arrival time");
            }
        }
    }

    @Test
    void arrivalBatchesStopAtThePushBatch() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--messages", "2000", "--warmup", "0", "--producers", "2", "--consumers", "2",
                    "--push-batch", "16", "--rate", "200000", "--arrival-batches", "--partitions", "2");
            assertEquals(0, r.code(), r.out());
            List<Integer> sizes = b.pushSizes();
            assertEquals(2000, sizes.stream().mapToInt(Integer::intValue).sum());
            assertEquals(16, sizes.stream().mapToInt(Integer::intValue).max().orElse(0), "pushes " + sizes);
        }
    }

    @Test
    void consumersWorkOnEachPopBeforeTheyAckIt() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--messages", "200", "--warmup", "0", "--producers", "1", "--push-batch", "20",
                    "--consumers", "2", "--pop-batch", "8", "--partitions", "4", "--work-ms", "5");
            assertEquals(0, r.code(), r.out());
            List<long[]> gaps = b.ackGaps();
            assertTrue(!gaps.isEmpty());
            for (long[] g : gaps) {
                assertTrue(g[0] >= g[1] * 5_000_000L, "ack " + g[0] / 1e6 + " ms after a pop of " + g[1]);
            }
        }
    }

    @Test
    void jobsPresetMeasuresPickupOfEveryJob() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--preset", "jobs", "--duration", "2", "--warmup", "0");
            assertEquals(0, r.code(), r.out());
            JsonNode run = r.json().get("runs").get(0);
            long pushed = run.get("totals").get("pushed").asLong();
            assertEquals(1000, pushed, 10);
            assertEquals(pushed, run.get("pickupLatencyMicros").get("count").asLong());
            assertTrue(r.out().contains("pickup (answer to pop)"), r.out());
        }
    }

    @Test
    void phasedDrain() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--messages", "2000", "--warmup", "0", "--phased", "--partitions", "5");
            assertEquals(0, r.code(), r.out());
            JsonNode run = r.json().get("runs").get(0);
            assertEquals(0, run.get("steady").get("acked").asLong());
            assertEquals(2000, run.get("drain").get("acked").asLong());
            assertTrue(run.get("popAckRate").asDouble() > 0);
        }
    }

    @Test
    void durationRunWithWarmup() throws Exception {
        try (FakeBroker b = new FakeBroker()) {
            Result r = run(b, "--duration", "2", "--warmup", "1", "--producers", "2", "--consumers", "2",
                    "--push-batch", "20", "--rate", "2000");
            assertEquals(0, r.code(), r.out());
            JsonNode run = r.json().get("runs").get(0);
            assertEquals(1.0, run.get("phases").get("warmupSeconds").asDouble(), 0.2);
            assertEquals(2.0, run.get("steady").get("seconds").asDouble(), 0.5);
            assertTrue(run.get("steady").get("pushed").asLong() > 0);
            assertTrue(r.out().contains("[") && r.out().contains("pushed"), "progress line");
        }
    }

    @Test
    void lostMessageFailsTheRun() throws Exception {
        Result r = failedRun(FakeBroker.Fault.DROP_ONE, "--messages", "500", "--warmup", "0", "--partitions", "2",
                "--drain-timeout", "3");
        assertEquals(1, r.verification().get("lost").asLong());
        assertTrue(r.out().contains(", 1 lost,"), r.out());
    }

    @Test
    void duplicateDeliveryFailsTheRun() throws Exception {
        Result r = failedRun(FakeBroker.Fault.DUPLICATE_FIRST_BATCH, "--messages", "500", "--warmup", "0",
                "--partitions", "2", "--ack", "auto");
        assertTrue(r.verification().get("duplicates").asLong() > 0);
    }

    @Test
    void reorderFailsTheRun() throws Exception {
        Result r = failedRun(FakeBroker.Fault.REORDER, "--messages", "500", "--warmup", "0", "--partitions", "1",
                "--producers", "1", "--consumers", "1");
        assertEquals(1, r.verification().get("outOfOrder").asLong());
    }

    @Test
    void unreachableBrokerIsAFailedRun() throws Exception {
        var bytes = new ByteArrayOutputStream();
        var ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = Main.run(new String[] {"--url", "http://127.0.0.1:1", "--preset", "smoke"}, ps, ps);
        assertEquals(1, code);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("not reachable"));
    }
}
