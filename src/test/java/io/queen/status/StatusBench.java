package io.queen.status;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.segment.Uuid7;
import io.queen.testing.BenchReport;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Latency of the read-side admin routes over 10,000 partitions (not a regression test; off unless
 * {@code -Dstatus.bench=true}):
 * <pre>
 * JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -q test -Dtest=StatusBench -Dstatus.bench=true
 * </pre>
 * One queue of 10,000 partitions holding 10 messages each (100,000 messages; one real 10-frame segment per
 * partition), a queue-mode cursor on every partition (committed 4, a live lease to 6 on every other one), a
 * caught-up group g1 on every partition and a dead letter on every 100th, created set-based in SQL. Each route is
 * timed over HTTP (20 runs after 3 warm-ups); then every partition's watermark is moved to 10,000,000 messages
 * (10^11 in all, segments unchanged) and the routes are timed again: figures are offset arithmetic, so the second
 * set must match the first. Results go to stdout and target/status-bench.txt.
 */
@QuarkusTest
@EnabledIfSystemProperty(named = "status.bench", matches = "true")
// the production snapshot settings (the test profile turns snapshots off)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.status.snapshot-threshold-ms", value = "25"),
        @ResourceArg(name = "queen.status.snapshot-refresh-ms", value = "2000")})
class StatusBench {
    static final int FRESH_RUNS = 7;
    static final int PARTITIONS = 10_000;
    static final int RUNS = 20;
    static final List<String> ROUTES = List.of("/api/v1/resources/overview", "/api/v1/resources/queues",
            "/api/v1/resources/queues/bench", "/api/v1/status/queues/bench", "/api/v1/status",
            "/api/v1/resources/namespaces", "/api/v1/consumer-groups", "/api/v1/consumer-groups/lagging?minLagSeconds=0",
            "/api/v1/consumer-groups/g1");
    static final BenchReport REPORT = new BenchReport("status-bench");

    @Inject
    AgroalDataSource ds;

    static void report(String line) {
        REPORT.add(line);
    }

    @Test
    void routesOverTenThousandPartitions() throws Exception {
        KnownDataSet.configure("bench", "bench-ns", "bench-task", "{\"leaseTime\":3600}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'bench'");
        List<Frame> fs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            fs.add(Frame.of(Uuid7.next(), "bench-" + i,
                    ("{\"order\":" + i + ",\"customer\":\"c-42\"}").getBytes(StandardCharsets.UTF_8)));
        }
        long t0 = System.nanoTime();
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, log_start, oldest_live_at)"
                + " SELECT '" + qid + "', 'p-' || g, 9, 0, now() - interval '1 hour'"
                + " FROM generate_series(1, " + PARTITIONS + ") g");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                        + " SELECT p.id, 0, 9, now() - interval '1 hour', ? FROM queen.log_partitions p"
                        + " WHERE p.queue_id = '" + qid + "'")) {
            ps.setBytes(1, SegmentCodec.encode(fs));
            ps.executeUpdate();
        }
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed, batch_end, worker_id,"
                + " lease_expires_at, total_consumed)"
                + " SELECT p.id, '__QUEUE_MODE__', 4, CASE WHEN n % 2 = 0 THEN 6 END,"
                + " CASE WHEN n % 2 = 0 THEN 'w-' || n END, CASE WHEN n % 2 = 0 THEN now() + interval '1 hour' END, 5"
                + " FROM (SELECT id, row_number() OVER (ORDER BY id) n FROM queen.log_partitions"
                + " WHERE queue_id = '" + qid + "') p");
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed, total_consumed)"
                + " SELECT id, 'g1', 9, 10 FROM queen.log_partitions WHERE queue_id = '" + qid + "'");
        Sql.exec(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\", transaction_id, error)"
                + " SELECT id, '__QUEUE_MODE__', 3, 'bench-3', 'bench error' FROM (SELECT id, row_number()"
                + " OVER (ORDER BY id) n FROM queen.log_partitions WHERE queue_id = '" + qid + "') p WHERE n % 100 = 0");
        Sql.exec(ds, "VACUUM ANALYZE queen.log_partitions");
        Sql.exec(ds, "VACUUM ANALYZE queen.log_consumers");
        Sql.exec(ds, "VACUUM ANALYZE queen.log_segments");
        Sql.exec(ds, "VACUUM ANALYZE queen.log_dlq");
        report(String.format("setup: 1 queue x %d partitions x 10 messages, 2 cursors per partition, %d dead letters,"
                + " built in %d ms", PARTITIONS, PARTITIONS / 100, (System.nanoTime() - t0) / 1_000_000));

        // exact figures first: the bench measures correct answers
        String overview = Http.get("/api/v1/resources/overview").body();
        assertEquals(true, overview.contains("\"total\":100000"), overview);
        measure("10 messages per partition (100,000 in all)");

        Sql.exec(ds, "UPDATE queen.log_partitions SET last_offset = 9999999 WHERE queue_id = '" + qid + "'");
        Sql.exec(ds, "VACUUM ANALYZE queen.log_partitions");
        Http.post("/api/v1/stats/refresh", "{}");
        overview = Http.get("/api/v1/resources/overview").body();
        assertEquals(true, overview.contains("\"total\":100000000000"), overview);
        measure("10,000,000 messages per partition (10^11 in all)");
    }

    void measure(String label) {
        report(label + ": route, answer bytes, computed on the request (stats/refresh before each; median / max of "
                + FRESH_RUNS + "), then as served to a poller (median / p95 / max of " + RUNS + ")");
        for (String route : ROUTES) {
            int bytes = 0;
            for (int i = 0; i < 3; i++) {
                Http.Reply r = Http.get(route);
                assertEquals(200, r.status(), route + " -> " + r.body());
                bytes = r.body().length();
            }
            double[] fresh = new double[FRESH_RUNS];
            for (int i = 0; i < FRESH_RUNS; i++) {
                Http.post("/api/v1/stats/refresh", "{}");
                long s = System.nanoTime();
                Http.Reply r = Http.get(route);
                fresh[i] = (System.nanoTime() - s) / 1e6;
                assertEquals(200, r.status());
            }
            Arrays.sort(fresh);
            double[] ms = new double[RUNS];
            for (int i = 0; i < RUNS; i++) {
                long s = System.nanoTime();
                Http.Reply r = Http.get(route);
                ms[i] = (System.nanoTime() - s) / 1e6;
                assertEquals(200, r.status());
            }
            Arrays.sort(ms);
            report(String.format("  %-52s %9d B  computed %7.1f / %7.1f   served %7.1f / %7.1f / %7.1f", route,
                    bytes, fresh[FRESH_RUNS / 2], fresh[FRESH_RUNS - 1], ms[RUNS / 2],
                    ms[(int) Math.ceil(RUNS * 0.95) - 1], ms[RUNS - 1]));
        }
    }
}
