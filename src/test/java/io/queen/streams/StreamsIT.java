package io.queen.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.testing.Api;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.TestPostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end, the way the streaming SDK drives the broker ({@link WindowedSumWorker} in its own JVM): an
 * event-time tumbling-window sum over 10 partitions x 1,000 events. The consumer is killed with -9 mid-stream and
 * restarted, and the broker is killed with -9 and restarted in between; every window's sum must be exact and
 * emitted once, and the open windows' state must have survived.
 */
class StreamsIT {
    static final int PARTITIONS = 10;
    static final int EVENTS = 1000;
    static final long WINDOW_MS = 1000;
    static final long TS_STEP = 100;
    static TestPostgres.Server pg;
    static String db;

    @BeforeAll
    static void start() {
        pg = TestPostgres.server();
        db = TestPostgres.createDatabase("streamsit");
    }

    @AfterAll
    static void stop() {
        TestPostgres.dropDatabase(db);
    }

    static long value(int p, int i) {
        return (long) (p + 1) * 1000 + (i * 37L) % 101;
    }

    long sql(String q) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(db), pg.user(), pg.password());
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(q)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Messages of the source the worker's group has committed, over all partitions. */
    long consumed() throws Exception {
        return sql("SELECT COALESCE(sum(c.committed + 1), 0) FROM queen.log_consumers c"
                + " WHERE c.consumer_group = 'streams.winsum'");
    }

    static Process worker(String url, String name) throws Exception {
        Path log = Path.of("target", "streams-worker-" + name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = new File("target/test-classes").getAbsolutePath() + File.pathSeparator
                + System.getProperty("java.class.path");
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", cp, WindowedSumWorker.class.getName(), url, "winsum",
                "win-src", "win-sink", String.valueOf(WINDOW_MS), "15").redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(log).contains("WORKER STARTED")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("worker did not start:\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
        return p;
    }

    void awaitConsumed(long atLeast, long timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (consumed() < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("consumed " + consumed() + " < " + atLeast);
            }
            Thread.sleep(20);
        }
    }

    Map<String, String> stateSnapshot() throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(db), pg.user(), pg.password());
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT partition_id::text || '/' || key, value::text FROM queen_streams.state")) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getString(2));
            }
        }
        return out;
    }

    @Test
    void windowedSumIsExactAcrossKills() throws Exception {
        BrokerProcess broker = BrokerProcess.start("streams-1", pg, db, Map.of());
        Process w1 = null;
        Process w2 = null;
        try {
            // a killed consumer's lease comes back after 2 s
            Http.Reply cfg = Http.post(broker.url(), "/api/v1/configure",
                    "{\"queue\":\"win-src\",\"options\":{\"leaseTime\":2}}");
            assertEquals(200, cfg.status(), cfg.body());
            for (int p = 0; p < PARTITIONS; p++) {
                for (int from = 0; from < EVENTS; from += 250) {
                    ArrayNode items = Api.M.createArrayNode();
                    for (int i = from; i < from + 250; i++) {
                        ObjectNode it = items.addObject().put("queue", "win-src").put("partition", "p" + p)
                                .put("transactionId", "e-" + p + "-" + i);
                        it.putObject("payload").put("ts", i * TS_STEP).put("v", value(p, i));
                    }
                    ObjectNode body = Api.M.createObjectNode();
                    body.set("items", items);
                    assertEquals(201, Http.post(broker.url(), "/api/v1/push", body.toString()).status());
                }
            }
            w1 = worker(broker.url(), "1");
            awaitConsumed(PARTITIONS * EVENTS / 4, 120);
            w1.destroyForcibly().waitFor();
            long atKill = consumed();
            assertTrue(atKill < PARTITIONS * EVENTS, "killed mid-stream");

            // the broker dies too: the state written so far must be what a new broker serves
            Map<String, String> before = stateSnapshot();
            assertTrue(before.size() > 0);
            broker.kill();
            broker = BrokerProcess.start("streams-2", pg, db, Map.of());
            assertEquals(before, stateSnapshot());
            String queryId = Api.json(Http.post(broker.url(), "/streams/v1/queries",
                    "{\"name\":\"winsum\",\"source_queue\":\"win-src\",\"sink_queue\":\"win-sink\",\"config_hash\":\"sum-"
                            + WINDOW_MS + "\"}").body()).get("query_id").asText();
            long servedRows = 0;
            for (String pid : partitionIds()) {
                servedRows += StreamsApi.state(broker.url(), queryId, pid).size();
            }
            assertEquals(before.size(), servedRows, "state/get serves every row after the restart");

            w2 = worker(broker.url(), "2");
            awaitConsumed(PARTITIONS * EVENTS, 180);
            w2.destroyForcibly().waitFor();

            // every closed window emitted exactly once with its exact sum; the open (last) window in state
            Map<String, Long> emitted = new HashMap<>();
            int dup = 0;
            while (true) {
                Http.Reply r = Http.get(broker.url(), "/api/v1/pop/queue/win-sink?batch=1000&partitions=10"
                        + "&consumerGroup=verify&autoAck=true");
                if (r.status() == 204) {
                    break;
                }
                for (JsonNode m : Api.json(r.body()).get("messages")) {
                    String k = m.get("partition").asText() + ":" + m.get("data").get("windowStart").asLong();
                    if (emitted.put(k, m.get("data").get("sum").asLong()) != null) {
                        dup++;
                    }
                }
            }
            assertEquals(0, dup, "windows emitted twice");
            int windows = (int) (EVENTS * TS_STEP / WINDOW_MS);
            for (int p = 0; p < PARTITIONS; p++) {
                for (int w = 0; w < windows; w++) {
                    long expect = 0;
                    for (int i = 0; i < EVENTS; i++) {
                        if (i * TS_STEP / WINDOW_MS == w) {
                            expect += value(p, i);
                        }
                    }
                    String k = "p" + p + ":" + w * WINDOW_MS;
                    if (w < windows - 1) {
                        assertEquals(expect, emitted.get(k), "window " + k);
                    } else {
                        assertEquals(null, emitted.get(k), "the last window is still open");
                        long open = sql("SELECT (s.value->>'acc')::bigint FROM queen_streams.state s"
                                + " JOIN queen.log_partitions lp ON lp.id = s.partition_id WHERE lp.name = 'p" + p
                                + "' AND s.key = 'sum' || chr(31) || '" + w * WINDOW_MS + "'");
                        assertEquals(expect, open, "open window " + k);
                    }
                }
            }
            assertEquals(PARTITIONS * (windows - 1), emitted.size());
        } finally {
            if (w1 != null) {
                w1.destroyForcibly();
            }
            if (w2 != null) {
                w2.destroyForcibly();
            }
            broker.close();
        }
    }

    List<String> partitionIds() throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(db), pg.user(), pg.password());
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT lp.id::text FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id"
                                + " WHERE q.name = 'win-src'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
