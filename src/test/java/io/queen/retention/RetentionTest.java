package io.queen.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Leases;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The retention loop against a real PostgreSQL: cutoffs are driven by passing an explicit "now" to
 * {@link RetentionCycle#runOnce} (or explicit cutoffs to the step functions) instead of sleeping.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RetentionTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;
    @Inject
    MeterRegistry registry;

    static void configure(String queue, String options) {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"" + queue + "\",\"options\":" + options + "}");
        assertEquals(200, r.status(), r.body());
    }

    /** Pushes one request of n items: one segment. Returns the offsets. */
    static long[] segment(String queue, String partition, int n, String txnPrefix) throws Exception {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"")
                    .append(partition).append("\",\"transactionId\":\"").append(txnPrefix).append('-').append(i)
                    .append("\",\"payload\":{\"i\":").append(i).append("}}");
        }
        Http.Reply r = Http.post("/api/v1/push", b.append("]}").toString());
        assertEquals(201, r.status(), r.body());
        JsonNode j = Api.M.readTree(r.body());
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            assertEquals("queued", j.get(i).get("status").asText(), r.body());
            out[i] = j.get(i).get("offset").asLong();
        }
        return out;
    }

    String pid(String queue, String partition) {
        return Sql.one(ds, "SELECT p.id FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = '" + queue + "' AND p.name = '" + partition + "'");
    }

    List<List<Object>> segments(String pid) {
        return Sql.rows(ds, "SELECT base_offset, end_offset, created_at FROM queen.log_segments WHERE partition_id = '"
                + pid + "' ORDER BY base_offset");
    }

    long partitionLong(String pid, String column) {
        return Sql.count(ds, "SELECT " + column + " FROM queen.log_partitions WHERE id = '" + pid + "'");
    }

    static Instant ts(Object o) {
        return o instanceof OffsetDateTime t ? t.toInstant() : ((java.sql.Timestamp) o).toInstant();
    }

    void consumer(String pid, String group, long committed) {
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed) VALUES ('" + pid
                + "', '" + group + "', " + committed + ") ON CONFLICT (partition_id, consumer_group) DO UPDATE SET"
                + " committed = EXCLUDED.committed");
    }

    /** Invariant 3 of storage-model.md, checked for one partition. */
    void assertInvariant3(String pid) {
        List<List<Object>> segs = segments(pid);
        long logStart = partitionLong(pid, "log_start");
        long last = partitionLong(pid, "last_offset");
        if (segs.isEmpty()) {
            assertEquals(last + 1, logStart, "empty partition: log_start = last_offset + 1");
            assertNull(Sql.one(ds, "SELECT oldest_live_at FROM queen.log_partitions WHERE id = '" + pid + "'"));
        } else {
            assertEquals(((Number) segs.get(0).get(0)).longValue(), logStart, "log_start = first live base_offset");
            assertEquals(ts(segs.get(0).get(2)), Instant.parse(Sql.one(ds, "SELECT to_json(oldest_live_at) #>> '{}'"
                    + " FROM queen.log_partitions WHERE id = '" + pid + "'")), "oldest_live_at = first live created_at");
        }
    }

    @Test
    void timeRetentionDeletesAWholeSegmentPrefixAndNeverMovesLogStartBack() throws Exception {
        configure("r-time", "{\"retentionEnabled\":true,\"retentionSeconds\":60}");
        long[] s1 = segment("r-time", "Default", 3, "a");
        long[] s2 = segment("r-time", "Default", 2, "b");
        long[] s3 = segment("r-time", "Default", 4, "c");
        String pid = pid("r-time", "Default");
        List<List<Object>> segs = segments(pid);
        assertEquals(3, segs.size());
        Instant third = ts(segs.get(2).get(2));
        assertTrue(ts(segs.get(1).get(2)).isBefore(third), "each push's segment is created after the one before");

        RetentionCycle.Report nothing = cycle.runOnce(third.plusSeconds(59));
        assertTrue(nothing.ran());
        assertEquals(3, segments(pid).size(), "nothing is older than the cutoff yet");
        assertEquals(0, partitionLong(pid, "log_start"));

        double before = counter("queen.retention.segments.deleted", "retention");
        // cutoff = created_at of the third segment: the first two (and only they) are older
        RetentionCycle.Report r = cycle.runOnce(third.plusSeconds(60));
        assertEquals(2, r.segmentsDeleted());
        assertEquals(5, r.messagesDeleted());
        assertEquals(1, segments(pid).size());
        assertEquals(s3[0], partitionLong(pid, "log_start"));
        assertEquals(s2[1] + 1, s3[0]);
        assertInvariant3(pid);
        assertEquals(2.0, counter("queen.retention.segments.deleted", "retention") - before);
        assertEquals(List.of(List.of(5, "retention")), Sql.rows(ds, "SELECT messages_deleted, retention_type"
                + " FROM queen.retention_history WHERE partition_id = '" + pid + "'"));
        assertEquals(3, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"),
                "the sidecar is purged on its own clock, not with the segments");

        // an older cutoff afterwards changes nothing: log_start never moves backwards
        assertEquals(List.of(List.of(0, s3[0], true)), Sql.rows(ds, "SELECT deleted, new_log_start, done FROM"
                + " queen.log_retention_step_v1('" + pid + "', now() - interval '1 day', NULL, 1000)"));
        assertEquals(s3[0], partitionLong(pid, "log_start"));

        // everything goes: the partition is empty, log_start = last_offset + 1, oldest_live_at NULL
        cycle.runOnce(Instant.now().plus(Duration.ofHours(1)));
        assertTrue(segments(pid).isEmpty());
        assertEquals(s3[3] + 1, partitionLong(pid, "log_start"));
        assertInvariant3(pid);
        // a later push continues at last_offset + 1 and re-fills oldest_live_at
        long[] s4 = segment("r-time", "Default", 1, "d");
        assertEquals(s3[3] + 1, s4[0]);
        assertInvariant3(pid);
        assertEquals(s1[0], 0);
    }

    @Test
    void aStepDeletesAtMostMaxRowsSegmentsAndReportsDone() throws Exception {
        for (int i = 0; i < 5; i++) {
            segment("r-batch", "Default", 2, "s" + i);
        }
        String pid = pid("r-batch", "Default");
        // explicit cutoff in the future: every segment qualifies under rule 1
        String step = "SELECT deleted, messages, new_log_start, done FROM queen.log_retention_step_v1('" + pid
                + "', now() + interval '1 hour', NULL, 2)";
        assertEquals(List.of(List.of(2, 4L, 4L, false)), Sql.rows(ds, step));
        assertInvariant3(pid);
        assertEquals(List.of(List.of(2, 4L, 8L, false)), Sql.rows(ds, step));
        assertEquals(List.of(List.of(1, 2L, 10L, true)), Sql.rows(ds, step));
        assertInvariant3(pid);
        assertEquals(List.of(List.of(0, 0L, 10L, true)), Sql.rows(ds, step));
    }

    @Test
    void completedRetentionNeverDeletesAnUnconsumedSegment() throws Exception {
        configure("r-done", "{\"retentionEnabled\":true,\"completedRetentionSeconds\":60}");
        long[] s1 = segment("r-done", "Default", 3, "a");
        long[] s2 = segment("r-done", "Default", 3, "b");
        long[] s3 = segment("r-done", "Default", 3, "c");
        String pid = pid("r-done", "Default");
        Instant later = Instant.now().plus(Duration.ofHours(2));

        RetentionCycle.Report r = cycle.runOnce(later);
        assertEquals(3, segments(pid).size(), "no consumer rows: rule 2 deletes nothing");
        assertTrue(r.touched().stream().noneMatch(t -> t.kind().equals("retention")
                && pid.equals(String.valueOf(t.partitionId()))));
        String inWork = "SELECT count(*) FROM queen.log_retention_work_v1('" + later + "', 5000) WHERE kind ="
                + " 'retention' AND partition_id = '" + pid + "'";
        assertEquals(0, Sql.count(ds, inWork), "a partition rule 2 cannot touch is not even stepped");

        consumer(pid, "g-slow", s1[0]);      // the first offset is consumed by every group: worth a step
        assertEquals(1, Sql.count(ds, inWork));
        consumer(pid, "g-slow", s2[0]);      // consumed segment 1 and the first frame of segment 2
        consumer(pid, "g-fast", s3[2]);      // consumed everything
        cycle.runOnce(later);
        assertEquals(2, segments(pid).size(), "only the segment every group consumed completely goes");
        assertEquals(s2[0], partitionLong(pid, "log_start"));
        assertInvariant3(pid);
        assertEquals("completed_retention", Sql.one(ds, "SELECT retention_type FROM queen.retention_history"
                + " WHERE partition_id = '" + pid + "'"));

        consumer(pid, "g-slow", s3[1]);      // segment 3 still has an unconsumed frame for g-slow
        cycle.runOnce(later);
        assertEquals(1, segments(pid).size());
        assertEquals(s3[0], partitionLong(pid, "log_start"));
        consumer(pid, "g-new", -1);          // a new group that consumed nothing pins everything left
        consumer(pid, "g-slow", s3[2]);
        assertEquals(0, Sql.count(ds, inWork));
        cycle.runOnce(later);
        assertEquals(1, segments(pid).size());
        assertEquals(s1[2] + 1, s2[0]);
    }

    /** The Default partition's id and its three segments, each as {base, end, ...} of {@link #segment}. */
    private record ThreeSegments(String pid, long[] s1, long[] s2, long[] s3) {
    }

    /**
     * A retention-enabled queue (60 s) with three segments of two messages in its Default partition, the third
     * created more than 1 ms after the second (the database's clock is awaited past that).
     */
    private ThreeSegments threeSegments(String queue) throws Exception {
        configure(queue, "{\"retentionEnabled\":true,\"retentionSeconds\":60}");
        long[] s1 = segment(queue, "Default", 2, "a");
        long[] s2 = segment(queue, "Default", 2, "b");
        String pid = pid(queue, "Default");
        Instant second = ts(segments(pid).get(1).get(2));
        Await.until("the database clock more than 1 ms past the second segment", () -> Sql.count(ds,
                "SELECT count(*) WHERE clock_timestamp() > '" + second.plusMillis(1) + "'::timestamptz") == 1,
                Duration.ofSeconds(5));
        return new ThreeSegments(pid, s1, s2, segment(queue, "Default", 2, "c"));
    }

    @Test
    void aConsumerWhoseNextOffsetWasDeletedContinuesAtTheNextLiveSegment() throws Exception {
        ThreeSegments s = threeSegments("r-gap");
        consumer(s.pid(), "g", s.s1()[1]);  // consumed segment 1 only; segment 2 is unconsumed
        Instant third = ts(segments(s.pid()).get(1).get(2)).plusMillis(1);
        Sql.exec(ds, "SELECT * FROM queen.log_retention_step_v1('" + s.pid() + "', '" + third + "', NULL, 1000)");
        // rule 1 deletes unconsumed data by design: segments 1 and 2 are gone, the cursor still points into the gap
        assertEquals(s.s3()[0], partitionLong(s.pid(), "log_start"));
        assertEquals(s.s1()[1], Sql.count(ds, "SELECT committed FROM queen.log_consumers WHERE partition_id = '"
                + s.pid() + "'"), "retention never moves a cursor");
        // the pop path's read for wanted = committed + 1: no segment covers it (head probe finds nothing), and the
        // forward scan starts at the next live segment: a gap, not a stall
        long wanted = s.s1()[1] + 1;
        assertEquals(s.s2()[0], wanted);
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_segment_at_v1('" + s.pid() + "', " + wanted
                + ")"));
        assertEquals(s.s3()[0], Sql.count(ds, "SELECT min(base_offset) FROM queen.log_segments WHERE partition_id = '"
                + s.pid() + "' AND base_offset > " + wanted));
    }

    @Test
    void popContinuesAtTheNextLiveSegmentWhenRetentionDeletedTheNextOffset() throws Exception {
        ThreeSegments s = threeSegments("r-pop");
        JsonNode first = Api.pop("/api/v1/pop/queue/r-pop/partition/Default?batch=2");
        assertEquals(List.of(s.s1()[0], s.s1()[1]), offsets(first));
        Api.ackAll(first, "completed", null);
        // rule 1 deletes segments 1 and 2; segment 2 was never consumed (data loss by design, counted)
        Instant cutoff = ts(segments(s.pid()).get(2).get(2));
        cycle.runOnce(cutoff.plusSeconds(60));
        assertEquals(s.s3()[0], partitionLong(s.pid(), "log_start"));
        assertEquals(s.s1()[1], Sql.count(ds, "SELECT committed FROM queen.log_consumers WHERE partition_id = '"
                + s.pid() + "'"), "retention never moves a cursor: the next offset " + s.s2()[0] + " is gone");
        JsonNode next = Api.pop("/api/v1/pop/queue/r-pop/partition/Default?batch=10");
        assertNotNull(next, "a gap is not a stall");
        assertEquals(List.of(s.s3()[0], s.s3()[1]), offsets(next), "the pop continues at the next live segment");
    }

    @Test
    void aLateAckOfAPurgedHashIsRedeliveredNotLost() throws Exception {
        configure("r-late", "{\"leaseTime\":1,\"dedupWindowSeconds\":60}");
        segment("r-late", "Default", 2, "late");
        String pid = pid("r-late", "Default");
        JsonNode popped = Api.pop("/api/v1/pop/queue/r-late/partition/Default?batch=10");
        assertEquals(2, Api.messages(popped).size());
        Instant created = ts(segments(pid).get(0).get(2));
        cycle.runOnce(created.plusSeconds(901));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"));
        JsonNode m = Api.messages(popped).get(0);
        JsonNode ack = Api.ack(m.get("transactionId").asText(), pid, m.get("leaseId").asText(), "completed", null, null);
        assertFalse(ack.get("success").asBoolean(), ack.toString());
        assertTrue(ack.get("error").asText().contains("Message not found"), ack.toString());
        assertEquals(-1, Sql.count(ds, "SELECT committed FROM queen.log_consumers WHERE partition_id = '" + pid
                + "'"), "an unresolvable ack is not an ack");
        assertEquals(1, Leases.expire(ds, "r-late"), "the 1 s lease runs out");
        JsonNode again = Api.pop("/api/v1/pop/queue/r-late/partition/Default?batch=10");
        assertNotNull(again, "redelivered after the lease expired");
        assertEquals(offsets(popped), offsets(again), "the same messages come back: redelivery, not loss");
    }

    static List<Long> offsets(JsonNode popped) {
        List<Long> out = new java.util.ArrayList<>();
        for (JsonNode m : Api.messages(popped)) {
            out.add(m.get("offset").asLong());
        }
        return out;
    }

    @Test
    void maxWaitEvictionDeletesUnconsumedDataEvenWithRetentionDisabled() throws Exception {
        configure("r-wait", "{\"retentionEnabled\":false,\"maxWaitTimeSeconds\":30}");
        segment("r-wait", "Default", 4, "a");
        String pid = pid("r-wait", "Default");
        Instant created = ts(segments(pid).get(0).get(2));
        assertEquals(1, segments(pid).size());
        cycle.runOnce(created.plusSeconds(29));
        assertEquals(1, segments(pid).size());
        double before = counter("queen.retention.messages.deleted", "max_wait_time_eviction");
        RetentionCycle.Report r = cycle.runOnce(created.plusSeconds(31));
        assertEquals(4, r.messagesEvicted());
        assertTrue(segments(pid).isEmpty());
        assertInvariant3(pid);
        assertEquals(4.0, counter("queen.retention.messages.deleted", "max_wait_time_eviction") - before);
        assertEquals(List.of(List.of(4, "max_wait_time_eviction")), Sql.rows(ds, "SELECT messages_deleted,"
                + " retention_type FROM queen.retention_history WHERE partition_id = '" + pid + "'"));
        // retention_seconds without retention_enabled deletes nothing
        configure("r-off", "{\"retentionEnabled\":false,\"retentionSeconds\":1}");
        segment("r-off", "Default", 1, "a");
        cycle.runOnce(Instant.now().plus(Duration.ofMinutes(10)));
        assertEquals(1, segments(pid("r-off", "Default")).size());
    }

    @Test
    void sidecarPurgeRunsOnItsOwnClockAndAPurgedHashIsUnknown() throws Exception {
        configure("r-txn", "{\"dedupWindowSeconds\":60}");
        segment("r-txn", "Default", 2, "t");
        segment("r-txn", "Default", 1, "u");
        String pid = pid("r-txn", "Default");
        Instant created = ts(segments(pid).get(1).get(2));
        // the txns cutoff is GREATEST(dedup window, completed retention, 900 s): 60 s is not enough
        cycle.runOnce(created.plusSeconds(120));
        assertEquals(2, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"));
        RetentionCycle.Report r = cycle.runOnce(created.plusSeconds(901));
        assertEquals(2, r.txnRowsPurged());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"));
        assertEquals(3, partitionLong(pid, "txns_start"));
        assertNull(Sql.one(ds, "SELECT oldest_txn_at FROM queen.log_partitions WHERE id = '" + pid + "'"));
        assertEquals(2, segments(pid).size(), "segments are untouched: retention is disabled on this queue");
        assertEquals(0, partitionLong(pid, "log_start"));
        // the hash no longer resolves: ack-by-hash would see "unknown" (redelivery, not loss)
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_txns t, queen.log_unnest_hashes(t.hashes) h"
                + " WHERE t.partition_id = '" + pid + "'"));
        // and a push of the same transaction id is accepted again (outside the window anyway)
        long[] again = segment("r-txn", "Default", 1, "u");
        assertEquals(3, again[0]);
        assertEquals(3, partitionLong(pid, "txns_start"), "the purge watermark stays where it was");
        assertNotNull(Sql.one(ds, "SELECT oldest_txn_at FROM queen.log_partitions WHERE id = '" + pid + "'"));
    }

    @Test
    void aSidecarPurgeStepStopsAtTheFirstRowInsideTheWindow() throws Exception {
        configure("r-txn2", "{\"dedupWindowSeconds\":60}");
        segment("r-txn2", "Default", 2, "p");
        segment("r-txn2", "Default", 1, "q");
        long[] third = segment("r-txn2", "Default", 3, "r");
        String pid = pid("r-txn2", "Default");
        Instant cut = ts(segments(pid).get(2).get(2));   // the third row's created_at: only the first two are older
        assertEquals(List.of(List.of(2, third[0], true)), Sql.rows(ds, "SELECT deleted, new_txns_start, done FROM"
                + " queen.log_txns_purge_step_v1('" + pid + "', '" + cut + "'::timestamptz, 1000)"));
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + pid + "'"));
        assertEquals(List.of(List.of(0, third[0], true)), Sql.rows(ds, "SELECT deleted, new_txns_start, done FROM"
                + " queen.log_txns_purge_step_v1('" + pid + "', '" + cut + "'::timestamptz, 1000)"), "idempotent");
        // a step of at most one row with everything older: one row, and "not done"
        assertEquals(List.of(List.of(1, third[0] + 3, false)), Sql.rows(ds, "SELECT deleted, new_txns_start, done"
                + " FROM queen.log_txns_purge_step_v1('" + pid + "', now() + interval '1 day', 1)"));
    }

    @Test
    void partitionCleanupRefusesADeadLetterAndDeletesAnEligiblePartitionWithItsSidecar() throws Exception {
        configure("r-clean", "{\"retentionEnabled\":true,\"retentionSeconds\":1}");
        for (String p : List.of("dead", "dlq", "busy", "fresh")) {
            segment("r-clean", p, 2, p);
        }
        // retention empties them all; their sidecar rows stay (purge is on its own clock)
        cycle.runOnce(Instant.now().plusSeconds(5));
        String dead = pid("r-clean", "dead");
        String dlq = pid("r-clean", "dlq");
        String busy = pid("r-clean", "busy");
        String fresh = pid("r-clean", "fresh");
        for (String p : List.of(dead, dlq, busy, fresh)) {
            assertTrue(segments(p).isEmpty());
            assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + p + "'"));
        }
        Sql.exec(ds, "UPDATE queen.log_partitions SET created_at = now() - interval '40 days', last_write_at = now()"
                + " - interval '40 days' WHERE id IN ('" + dead + "', '" + dlq + "', '" + busy + "')");
        Sql.exec(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\", transaction_id, payload)"
                + " VALUES ('" + dlq + "', '__QUEUE_MODE__', 0, 'dlq-0', '{}')");
        consumer(busy, "recent", 1);         // consumer row created now: recent activity
        consumer(dead, "old", 1);
        Sql.exec(ds, "UPDATE queen.log_consumers SET created_at = now() - interval '40 days' WHERE partition_id = '"
                + dead + "'");

        RetentionCycle.Report r = cycle.runWithCleanup(Instant.now());
        assertEquals(1, r.partitionsDeleted());
        assertNull(pid("r-clean", "dead"));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_txns WHERE partition_id = '" + dead + "'"),
                "the sidecar rows went with the partition");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_consumers WHERE partition_id = '" + dead + "'"));
        assertEquals(dlq, pid("r-clean", "dlq"), "a dead letter pins its partition");
        assertEquals(busy, pid("r-clean", "busy"), "recent consumer activity vetoes");
        assertEquals(fresh, pid("r-clean", "fresh"), "recently created/written partitions stay");
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.retention_history WHERE partition_id = '" + dead
                + "' AND retention_type = '__partition_deleted__'"));
        assertTrue(Sql.count(ds, "SELECT count(*) FROM queen.log_txns t WHERE NOT EXISTS (SELECT 1 FROM"
                + " queen.log_partitions p WHERE p.id = t.partition_id)") == 0, "no orphaned sidecar rows");
        // a push to the deleted name creates a new partition id
        segment("r-clean", "dead", 1, "again");
        assertFalse(dead.equals(pid("r-clean", "dead")));
    }

    @Test
    void retentionRacingPushesKeepsTheInvariantsAndLosesNothingUncounted() throws Exception {
        configure("r-race", "{\"retentionEnabled\":true,\"retentionSeconds\":1}");
        int threads = 4;
        int requests = 30;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        List<java.util.concurrent.Future<Integer>> fs = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int tt = t;
            fs.add(pool.submit(() -> {
                int n = 0;
                for (int r = 0; r < requests; r++) {
                    n += segment("r-race", "P" + (tt % 2), 3, "t" + tt + "-" + r).length;
                }
                return n;
            }));
        }
        int cycles = 0;
        while (fs.stream().anyMatch(f -> !f.isDone())) {
            // cutoff = now: everything committed before this instant is deletable, racing the pushers
            cycle.runOnce(Instant.now().plusSeconds(1));
            cycles++;
        }
        int pushed = 0;
        for (java.util.concurrent.Future<Integer> f : fs) {
            pushed += f.get();
        }
        pool.shutdown();
        assertTrue(cycles > 1, "cycles ran while pushing");
        long remaining = 0;
        for (String p : List.of("P0", "P1")) {
            String pid = pid("r-race", p);
            assertInvariant3(pid);
            List<List<Object>> segs = segments(pid);
            long expect = partitionLong(pid, "log_start");
            for (List<Object> seg : segs) {
                assertEquals(expect, ((Number) seg.get(0)).longValue(), "live segments are contiguous from log_start");
                expect = ((Number) seg.get(1)).longValue() + 1;
                remaining += expect - ((Number) seg.get(0)).longValue();
            }
            assertEquals(partitionLong(pid, "last_offset") + 1, expect, "no hole at the tail");
        }
        long deleted = Sql.count(ds, "SELECT COALESCE(sum(h.messages_deleted), 0) FROM queen.retention_history h"
                + " JOIN queen.log_partitions p ON p.id = h.partition_id JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = 'r-race'");
        assertEquals(pushed, deleted + remaining, "every message is either live or counted as deleted");
    }

    @Test
    void oneCycleAtATimeAcrossTheCluster() throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(" + RetentionStore.RETENTION_LOCK + ")");
            }
            assertFalse(cycle.runOnce(Instant.now()).ran(), "another broker holds the retention lock");
            c.rollback();
        }
        assertTrue(cycle.runOnce(Instant.now()).ran());
    }

    @Test
    void analyticsReportsWhatRetentionRemoved() throws Exception {
        configure("r-analytics", "{\"retentionEnabled\":true,\"retentionSeconds\":10}");
        segment("r-analytics", "Default", 3, "a");
        segment("r-analytics", "P2", 2, "b");
        cycle.runOnce(Instant.now().plusSeconds(30));
        Http.Reply reply = Http.get("/api/v1/analytics/retention?queue=r-analytics");
        assertEquals(200, reply.status(), reply.body());
        JsonNode j = Api.M.readTree(reply.body());
        assertEquals(5, j.get("totals").get("retentionMsgs").asLong());
        assertEquals(5, j.get("totals").get("totalMsgs").asLong());
        assertEquals(2, j.get("totals").get("eventCount").asLong());
        assertEquals("r-analytics", j.get("queues").get(0).get("queue").asText());
        assertEquals(5, j.get("queues").get(0).get("retentionMsgs").asLong());
        assertEquals(1, j.get("series").size());
        // a window before the deletion is empty; bad input is a 400 naming the field
        JsonNode old = Api.M.readTree(Http.get("/api/v1/analytics/retention?queue=r-analytics&from=2020-01-01T00:00:00Z"
                + "&to=2020-01-02T00:00:00Z").body());
        assertEquals(0, old.get("totals").get("totalMsgs").asLong());
        Http.Reply bad = Http.get("/api/v1/analytics/retention?from=yesterday");
        assertEquals(400, bad.status());
        assertTrue(bad.body().contains("from"), bad.body());
    }

    double counter(String name, String type) {
        var c = registry.find(name).tag("type", type).counter();
        return c == null ? 0 : c.count();
    }
}
