package io.queen.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Retention cost scales with deletable work, not with the number of partitions (own database: 20,000 rows). */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RetentionScaleTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;

    @Test
    void twentyThousandIdlePartitionsAndFiveDeletableOnesCostFiveSteps() throws Exception {
        Api.configure("r-scale", "{\"retentionEnabled\":true,\"retentionSeconds\":60}");
        String qid = Sql.one(ds, "SELECT id FROM queen.queues WHERE name = 'r-scale'");
        // 20,000 idle partitions, set-based: half never written (oldest_live_at NULL), half holding one fresh
        // segment (oldest_live_at recent)
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, oldest_live_at) SELECT '" + qid
                + "', 'idle-' || g, CASE WHEN g % 2 = 0 THEN -1 ELSE 0 END, CASE WHEN g % 2 = 0 THEN NULL ELSE now()"
                + " END FROM generate_series(1, 20000) g");
        Sql.exec(ds, "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                + " SELECT id, 0, 0, oldest_live_at, '\\x00'::bytea FROM queen.log_partitions WHERE oldest_live_at"
                + " IS NOT NULL");
        // 5 partitions with 3 one-hour-old segments each
        Sql.exec(ds, "INSERT INTO queen.log_partitions (queue_id, name, last_offset, oldest_live_at) SELECT '" + qid
                + "', 'old-' || g, 2, now() - interval '1 hour' FROM generate_series(1, 5) g");
        Sql.exec(ds, "INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)"
                + " SELECT p.id, o, o, now() - interval '1 hour' + o * interval '1 ms', '\\x00'::bytea"
                + " FROM queen.log_partitions p, generate_series(0, 2) o WHERE p.name LIKE 'old-%'");
        Sql.exec(ds, "ANALYZE queen.log_partitions");

        RetentionCycle.Report r = cycle.runOnce(Instant.now());
        assertEquals(5, r.workItems(), "the work list holds exactly the deletable partitions");
        Set<UUID> touched = new HashSet<>();
        r.touched().forEach(t -> touched.add(t.partitionId()));
        assertEquals(5, touched.size(), "exactly the 5 deletable partitions are stepped");
        assertEquals(15, r.segmentsDeleted());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id WHERE p.name LIKE 'old-%'"));
        assertEquals(10000, Sql.count(ds, "SELECT count(*) FROM queen.log_segments"), "idle data untouched");
        // the work list reads the partial index, never a scan of every partition
        String plan = String.join("\n", Sql.rows(ds, "EXPLAIN SELECT lp.id FROM queen.log_partitions lp WHERE"
                + " lp.queue_id = '" + qid + "' AND lp.oldest_live_at IS NOT NULL AND lp.oldest_live_at < now() -"
                + " interval '60 seconds' ORDER BY lp.oldest_live_at LIMIT 5000").stream()
                .map(row -> String.valueOf(row.get(0))).toList());
        assertTrue(plan.contains("idx_log_partitions_queue_oldest"), plan);
        // a second cycle has nothing to do
        RetentionCycle.Report again = cycle.runOnce(Instant.now());
        assertEquals(0, again.workItems());
        assertTrue(again.touched().isEmpty());
    }
}
