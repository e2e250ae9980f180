package io.queen.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cycle throughput and CPU per cycle in the SDK's shape: W workers each loop pop (10 messages of one partition,
 * consumer group) -> state/get -> cycle (1 state upsert, 1 sink message, ack of the 10). Measures, between the
 * 10% and 90% marks of the run, cycles per second, broker CPU (from /proc/&lt;pid&gt;/stat) and the CPU of the
 * PostgreSQL backends connected to the bench database, per cycle. Not a test: a manual driver.
 * Args: broker url, broker pid, jdbc url (user/password in it), partitions, messages per partition, workers,
 * mode: {@code cycle} (the shape above), {@code cycle-nosink} (no sink message), {@code ack} (the baseline without
 * streams: pop + {@code /api/v1/ack/batch} of the 10).
 */
public final class CycleBench {
    private static final ObjectMapper M = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static volatile String src = "bench-src";

    private CycleBench() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        long brokerPid = Long.parseLong(args[1]);
        String jdbc = args[2];
        int partitions = Integer.parseInt(args[3]);
        int perPartition = Integer.parseInt(args[4]);
        int workers = Integer.parseInt(args[5]);
        String mode = args.length > 6 ? args[6] : "cycle";
        src = "bench-src-" + mode + "-" + System.currentTimeMillis();
        int cycleSize = 10;
        for (int p = 0; p < partitions; p++) {
            for (int from = 0; from < perPartition; from += 500) {
                ObjectNode body = M.createObjectNode();
                ArrayNode items = body.putArray("items");
                for (int i = from; i < Math.min(perPartition, from + 500); i++) {
                    items.addObject().put("queue", src).put("partition", "p" + p)
                            .put("transactionId", "b-" + p + "-" + i).putObject("payload").put("v", i);
                }
                post(url, "/api/v1/push", body);
            }
        }
        String queryId = post(url, "/streams/v1/queries", M.createObjectNode().put("name", src)
                .put("source_queue", src).put("sink_queue", "bench-sink").put("config_hash", "1"))
                .get("query_id").asText();
        long total = (long) partitions * perPartition / cycleSize;
        AtomicLong cycles = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    while (cycles.get() < total) {
                        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url
                                + "/api/v1/pop/queue/" + src + "?batch=" + cycleSize + "&consumerGroup=streams.bench"))
                                .build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 204) {
                            Thread.sleep(5);
                            continue;
                        }
                        JsonNode msgs = M.readTree(r.body()).get("messages");
                        if (mode.equals("ack")) {
                            ObjectNode b = M.createObjectNode().put("consumerGroup", "streams.bench");
                            ArrayNode acks = b.putArray("acknowledgments");
                            for (JsonNode m : msgs) {
                                acks.addObject().put("transactionId", m.get("transactionId").asText())
                                        .put("partitionId", m.get("partitionId").asText())
                                        .put("leaseId", m.get("leaseId").asText()).put("status", "completed");
                            }
                            post(url, "/api/v1/ack/batch", b);
                            cycles.incrementAndGet();
                            continue;
                        }
                        String pid = msgs.get(0).get("partitionId").asText();
                        JsonNode rows = post(url, "/streams/v1/state/get", M.createObjectNode().put("query_id", queryId)
                                .put("partition_id", pid)).get("rows");
                        long sum = rows.isEmpty() ? 0 : rows.get(0).get("value").get("sum").asLong();
                        for (JsonNode m : msgs) {
                            sum += m.get("data").get("v").asLong();
                        }
                        JsonNode last = msgs.get(msgs.size() - 1);
                        ObjectNode c = M.createObjectNode().put("query_id", queryId).put("partition_id", pid)
                                .put("consumer_group", "streams.bench");
                        c.putArray("state_ops").addObject().put("type", "upsert").put("key", "sum").putObject("value")
                                .put("sum", sum);
                        ArrayNode sink = c.putArray("push_items");
                        if (mode.equals("cycle")) {
                            sink.addObject().put("queue", "bench-sink")
                                .put("partition", msgs.get(0).get("partition").asText())
                                .put("transactionId", "s-" + last.get("transactionId").asText())
                                .putObject("payload").put("sum", sum);
                        }
                        c.putObject("ack").put("transactionId", last.get("transactionId").asText())
                                .put("leaseId", last.get("leaseId").asText()).put("status", "completed")
                                .put("count", msgs.size());
                        if (post(url, "/streams/v1/cycle", c).path("success").asBoolean()) {
                            cycles.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        Sample start = sampleAt(total / 10, cycles, brokerPid, jdbc);
        Sample end = sampleAt(total * 9 / 10, cycles, brokerPid, jdbc);
        for (Thread t : threads) {
            t.join();
        }
        long n = end.cycles() - start.cycles();
        double secs = (end.nanos() - start.nanos()) / 1e9;
        double broker = end.brokerCpu() - start.brokerCpu();
        double pg = end.pgCpu() - start.pgCpu();
        System.out.printf("cycles %d of %d (%d refused), measured %d cycles in %.2f s: %.0f cycles/s, %.0f msg/s%n",
                cycles.get(), total, failed.get(), n, secs, n / secs, n * cycleSize / secs);
        System.out.printf("CPU per cycle: broker %.0f us + PostgreSQL backends %.0f us = %.0f us (driver %.0f us)%n",
                broker / n * 1e6, pg / n * 1e6, (broker + pg) / n * 1e6,
                (end.driverCpu() - start.driverCpu()) / n * 1e6);
    }

    /** The clock, the cycle count and the CPU seconds of broker, PostgreSQL backends and driver at one moment. */
    record Sample(long nanos, long cycles, double brokerCpu, double pgCpu, double driverCpu) {
    }

    /** Waits until {@code cycles} reaches {@code count}, then samples. */
    static Sample sampleAt(long count, AtomicLong cycles, long brokerPid, String jdbc) throws Exception {
        while (cycles.get() < count) {
            Thread.sleep(1);
        }
        return new Sample(System.nanoTime(), cycles.get(), procCpu(brokerPid), pgCpu(jdbc), selfCpu());
    }

    static JsonNode post(String url, String path, JsonNode body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(path + " -> " + r.statusCode() + " " + r.body());
        }
        return M.readTree(r.body());
    }

    /** utime + stime of a process, in seconds. */
    static double procCpu(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    /** CPU of the PostgreSQL backends connected to the bench database (the broker's pool), in seconds. */
    static double pgCpu(String jdbc) throws Exception {
        double sum = 0;
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid()")) {
            while (rs.next()) {
                try {
                    sum += procCpu(rs.getLong(1));
                } catch (java.io.IOException gone) {
                    // a backend that ended between the query and the read
                }
            }
        }
        return sum;
    }

    static double selfCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }
}
