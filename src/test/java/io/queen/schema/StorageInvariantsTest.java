package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The invariant checker itself: silent on storage the broker wrote, and it names each invariant when the storage is
 * broken on purpose (each break is undone before the next, inside one rolled-back transaction where possible).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StorageInvariantsTest {
    @Inject
    AgroalDataSource ds;

    String pid;

    List<String> brokenBy(String sql, String undo) {
        Sql.exec(ds, sql);
        try {
            return StorageInvariants.violations(ds);
        } finally {
            Sql.exec(ds, undo);
        }
    }

    void expect(String invariant, String sql, String undo) {
        List<String> v = brokenBy(sql, undo);
        assertTrue(v.stream().anyMatch(s -> s.startsWith(invariant + " ")), invariant + " not reported: " + v);
    }

    @Test
    void silentOnWhatTheBrokerWroteAndLoudOnEachBreak() {
        Api.pushN("inv", "p", "a", 0, 3);
        Api.pushN("inv", "p", "b", 3, 3);
        Api.pushN("inv", "p", "c", 6, 3);
        Api.ackAll(Api.pop("/api/v1/pop/queue/inv/partition/p?batch=4&wait=false&consumerGroup=g"), "completed", "g");
        Api.pop("/api/v1/pop/queue/inv/partition/p?batch=2&wait=false&consumerGroup=g");   // a live lease
        StorageInvariants.assertHold(ds);
        pid = Sql.one(ds, "SELECT p.id FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = 'inv'");
        String p = "'" + pid + "'";

        expect("segment_ranges", "UPDATE queen.log_partitions SET last_offset = 9 WHERE id = " + p,
                "UPDATE queen.log_partitions SET last_offset = 8 WHERE id = " + p);
        expect("created_at", "UPDATE queen.log_segments SET created_at = created_at - interval '1 hour'"
                + " WHERE partition_id = " + p + " AND base_offset = 6",
                "UPDATE queen.log_segments s SET created_at = t.created_at FROM queen.log_txns t"
                + " WHERE s.partition_id = " + p + " AND t.partition_id = s.partition_id AND t.base_offset = 6"
                + " AND s.base_offset = 6");
        expect("sidecar", "UPDATE queen.log_txns SET hashes = substring(hashes FROM 1 FOR 16) WHERE partition_id = " + p
                + " AND base_offset = 3", "UPDATE queen.log_txns SET hashes = hashes || hashes || hashes"
                + " WHERE partition_id = " + p + " AND base_offset = 3");
        expect("cursor_range", "UPDATE queen.log_consumers SET worker_id = NULL WHERE partition_id = " + p,
                "UPDATE queen.log_consumers SET worker_id = 'w' WHERE partition_id = " + p);
        expect("watermark", "UPDATE queen.log_partitions SET oldest_live_at = NULL WHERE id = " + p,
                "UPDATE queen.log_partitions lp SET oldest_live_at = (SELECT min(created_at) FROM queen.log_segments s"
                + " WHERE s.partition_id = lp.id) WHERE id = " + p);
        expect("orphan", "INSERT INTO queen.log_txns VALUES ('00000000-0000-0000-0000-00000000000f', 0, 0, now(),"
                + " decode(repeat('00', 16), 'hex'))",
                "DELETE FROM queen.log_txns WHERE partition_id = '00000000-0000-0000-0000-00000000000f'");
        StorageInvariants.assertHold(ds);
    }

    @Test
    void theOrphanSweepRemovesSidecarAndDeadLetterRowsOfVanishedPartitions() {
        Sql.exec(ds, "INSERT INTO queen.log_txns VALUES ('00000000-0000-0000-0000-0000000000aa', 0, 1, now(),"
                + " decode(repeat('00', 32), 'hex'))");
        Sql.exec(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\") VALUES"
                + " ('00000000-0000-0000-0000-0000000000ab', 'g', 0)");
        Api.pushN("keepme", "p", "k", 0, 2);
        long before = Sql.count(ds, "SELECT count(*) FROM queen.log_txns");
        List<List<Object>> r = Sql.rows(ds, "SELECT txn_rows, dlq_rows, trace_rows, partitions FROM queen.log_orphan_sweep_v1(1000)");
        assertEquals(List.of(List.of(1, 1, 0, 2)), r);
        assertEquals(before - 1, Sql.count(ds, "SELECT count(*) FROM queen.log_txns"));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq"));
        StorageInvariants.assertHold(ds);
    }
}
