package io.queen.schema;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The schema promised by storage-model.md, read back from the catalog after the boot apply on an empty
 * database, and again after a second apply (idempotence).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SchemaCatalogTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    SchemaApplier applier;

    @Test
    void catalogMatchesTheStorageModelAndSecondApplyIsANoOp() throws Exception {
        assertCatalog();
        String before = catalogFingerprint();
        applier.apply();
        assertCatalog();
        assertEquals(before, catalogFingerprint(), "a second apply must change nothing");
    }

    @Test
    void healthReportsTheDatabase() {
        given().get("/health").then().statusCode(200).body("status", equalTo("healthy"))
                .body("database", equalTo("connected"));
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
    }

    @Test
    void unknownRouteIsJson404() {
        given().get("/api/v1/nope").then().statusCode(404).body("error", equalTo("Not found"));
    }

    private void assertCatalog() throws SQLException {
        assertEquals(Set.of("id", "name", "tenant_id", "namespace", "task", "priority", "lease_time", "retry_limit",
                "retry_delay", "ttl", "dead_letter_queue", "dlq_after_max_retries", "delayed_processing",
                "window_buffer", "retention_seconds", "completed_retention_seconds", "retention_enabled",
                "encryption_enabled", "max_wait_time_seconds", "max_queue_size", "min_pop_wait_time",
                "dedup_window_seconds", "created_at"), columns("queues"));
        assertEquals("60", columnDefault("queues", "lease_time"));
        assertEquals("3600", columnDefault("queues", "dedup_window_seconds"));
        assertEquals(Set.of("id", "queue_id", "name", "last_offset", "log_start", "txns_start", "last_write_at",
                "created_at", "oldest_live_at", "oldest_txn_at"), columns("log_partitions"));
        assertEquals(Set.of("partition_id", "base_offset", "end_offset", "created_at", "blob"),
                columns("log_segments"));
        assertEquals(Set.of("partition_id", "base_offset", "end_offset", "created_at", "hashes"),
                columns("log_txns"));
        assertEquals(Set.of("partition_id", "consumer_group", "committed", "batch_end", "worker_id",
                "lease_expires_at", "lease_acquired_at", "batch_retry_count", "attempt_offset", "attempt_count",
                "total_consumed", "lease_conflated", "created_at"), columns("log_consumers"));
        assertTrue(columns("log_dlq").containsAll(Set.of("id", "partition_id", "consumer_group", "offset",
                "message_id", "transaction_id", "payload", "error", "retry_count", "failed_at")));

        // indexes: exactly the ones the model names
        assertEquals(Set.of("queues_pkey", "queues_tenant_name_uk", "idx_queues_name"), indexes("queues"));
        assertEquals(Set.of("log_partitions_pkey", "log_partitions_queue_id_name_key",
                "idx_log_partitions_queue_write", "idx_log_partitions_queue_oldest",
                "idx_log_partitions_queue_oldest_txn"), indexes("log_partitions"));
        assertEquals(Set.of("log_segments_pkey"), indexes("log_segments"), "no secondary index on log_segments");
        assertEquals(Set.of("log_txns_pkey"), indexes("log_txns"));
        assertEquals(Set.of("log_consumers_pkey"), indexes("log_consumers"));
        assertEquals(Set.of("log_dlq_pkey", "idx_log_dlq_partition_failed_at"), indexes("log_dlq"));
        assertTrue(indexDef("idx_log_partitions_queue_oldest").contains("WHERE (oldest_live_at IS NOT NULL)"));
        assertTrue(indexDef("idx_log_partitions_queue_oldest_txn").contains("WHERE (oldest_txn_at IS NOT NULL)"));
        assertTrue(indexDef("idx_log_dlq_partition_failed_at").contains("(partition_id, failed_at DESC)"));
        assertTrue(indexDef("queues_tenant_name_uk").contains("UNIQUE INDEX"));
        assertTrue(allIndexesValid());

        // no foreign keys on the sidecar and the DLQ; cascades where the model has them
        assertEquals(List.of(), foreignKeys("log_txns"));
        assertEquals(List.of(), foreignKeys("log_dlq"));
        assertEquals(List.of("queues"), foreignKeys("log_partitions"));
        assertEquals(List.of("log_partitions"), foreignKeys("log_segments"));
        assertEquals(List.of("log_partitions"), foreignKeys("log_consumers"));

        // storage parameters, heap and TOAST
        assertEquals(Set.of("fillfactor=70", "autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=500",
                "autovacuum_vacuum_cost_delay=0", "vacuum_truncate=off"), reloptions("log_partitions", false));
        Set<String> segments = Set.of("autovacuum_vacuum_scale_factor=0.1",
                "autovacuum_vacuum_insert_scale_factor=0.3", "autovacuum_vacuum_cost_limit=4000",
                "autovacuum_vacuum_cost_delay=0");
        assertEquals(segments, reloptions("log_segments", false));
        assertEquals(segments, reloptions("log_segments", true), "TOAST table carries the same vacuum settings");
        assertEquals(Set.of("autovacuum_vacuum_scale_factor=0.1", "autovacuum_vacuum_insert_scale_factor=0.3",
                "autovacuum_vacuum_cost_delay=0"), reloptions("log_txns", false));
        assertEquals(Set.of("fillfactor=50", "autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=500",
                "autovacuum_vacuum_cost_delay=0", "vacuum_truncate=off"), reloptions("log_consumers", false));
        assertEquals("e", one("SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'queen.log_segments'::regclass"
                + " AND attname = 'blob'"), "blob is STORAGE EXTERNAL");

        // the hash helper explodes a 16-byte stride, zero-based, and is IMMUTABLE
        assertEquals("0:000102030405060708090a0b0c0d0e0f|1:101112131415161718191a1b1c1d1e1f",
                one("SELECT string_agg(idx || ':' || encode(h, 'hex'), '|' ORDER BY idx) FROM queen.log_unnest_hashes("
                        + "'\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea)"));
        assertEquals("i", one("SELECT provolatile::text FROM pg_proc WHERE proname = 'log_unnest_hashes'"));
        assertFalse(columns("queues").contains("storage"), "no engine-selector column");
    }

    private Set<String> columns(String table) throws SQLException {
        return strings("SELECT column_name FROM information_schema.columns WHERE table_schema = 'queen'"
                + " AND table_name = '" + table + "'");
    }

    private String columnDefault(String table, String column) throws SQLException {
        return one("SELECT column_default FROM information_schema.columns WHERE table_schema = 'queen'"
                + " AND table_name = '" + table + "' AND column_name = '" + column + "'");
    }

    private Set<String> indexes(String table) throws SQLException {
        return strings("SELECT indexname FROM pg_indexes WHERE schemaname = 'queen' AND tablename = '" + table + "'");
    }

    private String indexDef(String index) throws SQLException {
        return one("SELECT indexdef FROM pg_indexes WHERE schemaname = 'queen' AND indexname = '" + index + "'");
    }

    private boolean allIndexesValid() throws SQLException {
        return "0".equals(one("SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'queen' AND NOT i.indisvalid"));
    }

    private List<String> foreignKeys(String table) throws SQLException {
        return new ArrayList<>(strings("SELECT ft.relname FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid"
                + " JOIN pg_class ft ON ft.oid = k.confrelid WHERE k.contype = 'f' AND t.relnamespace = 'queen'::regnamespace"
                + " AND t.relname = '" + table + "' AND (k.confdeltype = 'c')"
                + " UNION ALL SELECT 'NOT-CASCADE:' || ft.relname FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid"
                + " JOIN pg_class ft ON ft.oid = k.confrelid WHERE k.contype = 'f' AND t.relnamespace = 'queen'::regnamespace"
                + " AND t.relname = '" + table + "' AND k.confdeltype <> 'c'"));
    }

    private Set<String> reloptions(String table, boolean toast) throws SQLException {
        String rel = toast
                ? "(SELECT reltoastrelid FROM pg_class WHERE oid = 'queen." + table + "'::regclass)"
                : "'queen." + table + "'::regclass";
        return strings("SELECT unnest(reloptions) FROM pg_class WHERE oid = " + rel);
    }

    private String catalogFingerprint() throws SQLException {
        return one("SELECT string_agg(x, '|' ORDER BY x) FROM ("
                + " SELECT c.relname || ':' || coalesce(array_to_string(c.reloptions, ','), '') AS x FROM pg_class c"
                + " WHERE c.relnamespace = 'queen'::regnamespace"
                + " UNION ALL SELECT table_name || '.' || column_name || ':' || data_type || ':' || coalesce(column_default, '')"
                + " FROM information_schema.columns WHERE table_schema = 'queen'"
                + " UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'queen') s");
    }

    private Set<String> strings(String sql) throws SQLException {
        Set<String> out = new TreeSet<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private String one(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
