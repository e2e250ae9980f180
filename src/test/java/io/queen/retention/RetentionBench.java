package io.queen.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.segment.Uuid7;
import io.queen.testing.BenchReport;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Retention measurements (not a regression test; off unless {@code -Dretention.bench=true}):
 * <pre>
 * JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -q test -Dtest=RetentionBench -Dretention.bench=true
 * </pre>
 * (1) segments deleted per second by one retention worker: 1,000 partitions x 100 segments x 10 frames = 1M
 * messages created set-based in SQL (every segment a real 10-frame SegmentCodec blob), all past retention, then
 * cycles are timed until nothing is left; (2) duration of an idle cycle over 100,000 partitions (half never
 * written, half holding fresh data). Results go to stdout and target/retention-bench.txt.
 */
@QuarkusTest
@EnabledIfSystemProperty(named = "retention.bench", matches = "true")
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RetentionBench {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;

    static final BenchReport REPORT = new BenchReport("retention-bench");

    static void report(String line) {
        REPORT.add(line);
    }

    static void configure(String queue, String options) {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"" + queue + "\",\"options\":" + options + "}");
        assertEquals(200, r.status(), r.body());
    }

    @Test
    void deletionThroughputOnOneMillionMessages() throws Exception {
        int partitions = 1000;
        int segmentsPer = 100;
        int frames = 10;
        configure("bench-del", "{\"retentionEnabled\":true,\"retentionSeconds\":3600}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'bench-del'");
        List<Frame> fs = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            fs.add(Frame.of(Uuid7.next(), "bench-" + i,
                    ("{\"order\":" + i + ",\"customer\":\"c-42\",\"amount\":12.5,\"items\":[1,2,3]}")
                            .getBytes(StandardCharsets.UTF_8)));
        }
        byte[] blob = SegmentCodec.encode(fs);
        long t0 = System.nanoTime();
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, log_start, oldest_live_at)"
                + " SELECT '" + qid + "', 'p-' || g, " + (segmentsPer * frames - 1) + ", 0, now() - interval '2 hours'"
                + " FROM generate_series(1, " + partitions + ") g");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                        + " SELECT p.id, s * " + frames + ", s * " + frames + " + " + (frames - 1)
                        + ", now() - interval '2 hours' + s * interval '1 ms', ? FROM queen.log_partitions p,"
                        + " generate_series(0, " + (segmentsPer - 1) + ") s WHERE p.queue_id = '" + qid + "'")) {
            ps.setBytes(1, blob);
            ps.executeUpdate();
        }
        Sql.exec(ds, "VACUUM ANALYZE queen.log_segments");
        Sql.exec(ds, "ANALYZE queen.log_partitions");
        long segments = Sql.count(ds, "SELECT count(*) FROM queen.log_segments");
        report(String.format("setup: %d partitions x %d segments x %d frames = %d messages, %d segment rows,"
                + " blob %d B, built in %d ms", partitions, segmentsPer, frames, segments * frames, segments,
                blob.length, (System.nanoTime() - t0) / 1_000_000));

        long start = System.nanoTime();
        long deleted = 0;
        int cycles = 0;
        while (true) {
            RetentionCycle.Report r = cycle.runOnce(Instant.now());
            cycles++;
            deleted += r.segmentsDeleted();
            report(String.format("cycle %d: %d segments (%d messages) deleted in %d ms, %d work items", cycles,
                    r.segmentsDeleted(), r.messagesDeleted(), r.took().toMillis(), r.workItems()));
            if (r.segmentsDeleted() == 0) {
                break;
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        assertEquals(segments, deleted);
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_segments"));
        report(String.format("DELETION: %d segments (%d messages) in %.2f s = %.0f segments/s, %.0f messages/s"
                + " (batch %d, parallelism 1, %d cycles incl. the final empty one)", deleted, deleted * frames, secs,
                deleted / secs, deleted * frames / secs, 1000, cycles));
    }

    @Test
    void deletionThroughputWithToastedBlobs() throws Exception {
        // segments whose blob lives out of line in TOAST (4 KiB of incompressible payload): deleting them also
        // deletes TOAST chunks, the realistic case for busy partitions with large segments
        int partitions = 1000;
        int segmentsPer = 20;
        configure("bench-toast", "{\"retentionEnabled\":true,\"retentionSeconds\":3600}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'bench-toast'");
        java.util.Random rnd = new java.util.Random(42);
        List<Frame> fs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            byte[] p = new byte[40];
            rnd.nextBytes(p);
            fs.add(Frame.of(Uuid7.next(), "toast-" + i, ("\"" + java.util.HexFormat.of().formatHex(p) + "\"")
                    .getBytes(StandardCharsets.UTF_8)));
        }
        byte[] blob = SegmentCodec.encode(fs);
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, log_start, oldest_live_at)"
                + " SELECT '" + qid + "', 't-' || g, " + (segmentsPer * 100 - 1) + ", 0, now() - interval '2 hours'"
                + " FROM generate_series(1, " + partitions + ") g");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                        + " SELECT p.id, s * 100, s * 100 + 99, now() - interval '2 hours' + s * interval '1 ms', ?"
                        + " FROM queen.log_partitions p, generate_series(0, " + (segmentsPer - 1) + ") s"
                        + " WHERE p.queue_id = '" + qid + "'")) {
            ps.setBytes(1, blob);
            ps.executeUpdate();
        }
        Sql.exec(ds, "VACUUM ANALYZE queen.log_segments");
        long segments = Sql.count(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id WHERE p.queue_id = '" + qid + "'");
        String toast = Sql.one(ds, "SELECT pg_size_pretty(pg_total_relation_size(reltoastrelid)) FROM pg_class"
                + " WHERE oid = 'queen.log_segments'::regclass");
        long start = System.nanoTime();
        long deleted = 0;
        while (true) {
            RetentionCycle.Report r = cycle.runOnce(Instant.now());
            deleted += r.segmentsDeleted();
            if (r.segmentsDeleted() == 0) {
                break;
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        assertEquals(segments, deleted);
        report(String.format("DELETION (TOASTed blobs, %d B each, TOAST table %s): %d segments (%d messages) in"
                + " %.2f s = %.0f segments/s", blob.length, toast, deleted, deleted * 100, secs, deleted / secs));
    }

    @Test
    void cycleOverTenThousandPartitionsPinnedByCompletedRetention() throws Exception {
        // old data nobody has consumed yet under completedRetentionSeconds only: not deletable, so the work list
        // skips these partitions, but its index range scan still visits each of them (one consumer PK probe each)
        configure("bench-pinned", "{\"retentionEnabled\":true,\"completedRetentionSeconds\":600}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'bench-pinned'");
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, oldest_live_at)"
                + " SELECT '" + qid + "', 'pin-' || g, 0, now() - interval '1 hour' FROM generate_series(1, 10000) g");
        Sql.exec(ds, "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                + " SELECT id, 0, 0, oldest_live_at, '\\x00'::bytea FROM queen.log_partitions WHERE queue_id = '"
                + qid + "'");
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed)"
                + " SELECT id, 'slow', -1 FROM queen.log_partitions WHERE queue_id = '" + qid + "'");
        Sql.exec(ds, "ANALYZE queen.log_partitions");
        Sql.exec(ds, "ANALYZE queen.log_consumers");
        cycle.runOnce(Instant.now());
        long[] ms = new long[10];
        for (int i = 0; i < ms.length; i++) {
            long t = System.nanoTime();
            RetentionCycle.Report r = cycle.runOnce(Instant.now());
            ms[i] = (System.nanoTime() - t) / 1_000;
            assertEquals(0, r.segmentsDeleted());
        }
        Arrays.sort(ms);
        report(String.format("PINNED CYCLE over 10000 partitions with old unconsumed data (completed retention only):"
                + " median %.2f ms, min %.2f ms, max %.2f ms over %d cycles", ms[ms.length / 2] / 1000.0,
                ms[0] / 1000.0, ms[ms.length - 1] / 1000.0, ms.length));
    }

    @Test
    void idleCycleOverOneHundredThousandPartitions() throws Exception {
        configure("bench-idle", "{\"retentionEnabled\":true,\"retentionSeconds\":3600,\"completedRetentionSeconds\":600}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'bench-idle'");
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, oldest_live_at, oldest_txn_at)"
                + " SELECT '" + qid + "', 'idle-' || g, CASE WHEN g % 2 = 0 THEN -1 ELSE 0 END,"
                + " CASE WHEN g % 2 = 0 THEN NULL ELSE now() END, CASE WHEN g % 2 = 0 THEN NULL ELSE now() END"
                + " FROM generate_series(1, 100000) g");
        Sql.exec(ds, "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                + " SELECT id, 0, 0, oldest_live_at, '\\x00'::bytea FROM queen.log_partitions"
                + " WHERE oldest_live_at IS NOT NULL AND queue_id = '" + qid + "'");
        Sql.exec(ds, "ANALYZE queen.log_partitions");
        // other tests of this class may have left partitions pinned by completed retention in this database
        Sql.exec(ds, "DELETE FROM queen.queues WHERE name = 'bench-pinned'");
        cycle.runOnce(Instant.now()); // warm-up (plans, connections)
        long[] ms = new long[20];
        for (int i = 0; i < ms.length; i++) {
            long t = System.nanoTime();
            RetentionCycle.Report r = cycle.runOnce(Instant.now());
            ms[i] = (System.nanoTime() - t) / 1_000;
            assertEquals(0, r.touched().size());
        }
        Arrays.sort(ms);
        report(String.format("IDLE CYCLE over %d partitions (50%% never written, 50%% with fresh data): median %.2f ms,"
                + " min %.2f ms, max %.2f ms over %d cycles", Sql.count(ds, "SELECT count(*) FROM queen.log_partitions"),
                ms[ms.length / 2] / 1000.0, ms[0] / 1000.0, ms[ms.length - 1] / 1000.0, ms.length));
    }
}
