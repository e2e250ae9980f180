package io.queen.analytics;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.api.Times;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;

/**
 * {@code GET /api/v1/analytics/postgres-stats} (API spec 4.8): PostgreSQL's own statistics for the broker's
 * database and the {@code queen} schema: cache hit ratios (database, tables, indexes), dead tuples and vacuum
 * times, HOT update ratios, active queries, autovacuum workers, buffer settings and background-writer counters,
 * table sizes. Admin only: {@code activeQueries} shows what every session on the database runs, other
 * applications' too, so statements are shown without their literals and comments ({@link QueryText}). Cost: a handful of catalog/statistics view reads (tens of ms at most; no table is scanned).
 * Statistics views differ across PostgreSQL versions, so version-dependent rows (bgwriter) are passed through as
 * they are. Stateless.
 */
@Path("/api/v1/analytics/postgres-stats")
@Access(Access.Level.ADMIN)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class PostgresStatsResource {
    private static final String QUEEN_TABLES = "schemaname = 'queen'";
    /** Characters of a statement shown, after its literals are removed. */
    private static final int QUERY_CHARS = 300;
    /** Characters of a statement read: a literal cut by this read is cut from the answer too. */
    private static final int QUERY_READ_CHARS = 4096;

    @Inject AnalyticsReads reads;
    @Inject Callers callers;

    @GET
    public Response stats() throws SQLException {
        AnalyticsResource.requireClusterView(callers);  // the database is shared by every tenant
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("timestamp", Times.millis(Instant.now()));
        out.set("database", reads.one("SELECT datname AS name, numbackends AS connections,"
                + " xact_commit AS \"commits\", xact_rollback AS \"rollbacks\", blks_read AS \"blocksRead\","
                + " blks_hit AS \"blocksHit\", tup_returned AS \"tuplesReturned\", tup_fetched AS \"tuplesFetched\","
                + " tup_inserted AS \"tuplesInserted\", tup_updated AS \"tuplesUpdated\","
                + " tup_deleted AS \"tuplesDeleted\", conflicts, temp_files AS \"tempFiles\","
                + " temp_bytes AS \"tempBytes\", deadlocks, pg_database_size(datname) AS \"sizeBytes\","
                + " stats_reset AS \"statsReset\", current_setting('server_version') AS \"serverVersion\""
                + " FROM pg_stat_database WHERE datname = current_database()"));
        ObjectNode dbCache = reads.one("SELECT blks_hit AS hits, blks_read AS reads,"
                + percent("blks_hit", "blks_hit + blks_read") + " AS \"hitRatio\""
                + " FROM pg_stat_database WHERE datname = current_database()");
        out.set("databaseCache", dbCache);
        out.set("tableCache", reads.rows("SELECT relname AS \"table\", heap_blks_hit AS hits, heap_blks_read AS reads,"
                + percent("heap_blks_hit", "heap_blks_hit + heap_blks_read") + " AS \"hitRatio\","
                + " toast_blks_hit AS \"toastHits\", toast_blks_read AS \"toastReads\""
                + " FROM pg_statio_user_tables WHERE " + QUEEN_TABLES + " ORDER BY heap_blks_hit + heap_blks_read DESC"));
        out.set("indexCache", reads.rows("SELECT relname AS \"table\", indexrelname AS \"index\", idx_blks_hit AS hits,"
                + " idx_blks_read AS reads,"
                + percent("idx_blks_hit", "idx_blks_hit + idx_blks_read") + " AS \"hitRatio\""
                + " FROM pg_statio_user_indexes WHERE " + QUEEN_TABLES + " ORDER BY idx_blks_hit + idx_blks_read DESC"));
        ObjectNode summary = reads.one("SELECT"
                + percent("sum(heap_blks_hit)", "sum(heap_blks_hit + heap_blks_read)")
                + " AS \"tableHitRatio\" FROM pg_statio_user_tables WHERE " + QUEEN_TABLES);
        summary.setAll(reads.one("SELECT"
                + percent("sum(idx_blks_hit)", "sum(idx_blks_hit + idx_blks_read)")
                + " AS \"indexHitRatio\" FROM pg_statio_user_indexes WHERE " + QUEEN_TABLES));
        summary.set("databaseHitRatio", dbCache.get("hitRatio"));
        out.set("cacheSummary", summary);
        out.set("deadTuples", reads.rows("SELECT relname AS \"table\", n_live_tup AS \"liveTuples\","
                + " n_dead_tup AS \"deadTuples\","
                + percent("n_dead_tup", "n_live_tup + n_dead_tup") + " AS \"deadRatio\","
                + " last_vacuum AS \"lastVacuum\", last_autovacuum AS \"lastAutovacuum\","
                + " last_autoanalyze AS \"lastAutoanalyze\", vacuum_count AS \"vacuumCount\","
                + " autovacuum_count AS \"autovacuumCount\""
                + " FROM pg_stat_user_tables WHERE " + QUEEN_TABLES + " ORDER BY n_dead_tup DESC"));
        out.set("hotUpdates", reads.rows("SELECT relname AS \"table\", n_tup_upd AS updates,"
                + " n_tup_hot_upd AS \"hotUpdates\","
                + percent("n_tup_hot_upd", "n_tup_upd") + " AS \"hotRatio\""
                + " FROM pg_stat_user_tables WHERE " + QUEEN_TABLES + " AND n_tup_upd > 0 ORDER BY n_tup_upd DESC"));
        ArrayNode active = reads.rows("SELECT pid, usename AS \"user\", application_name AS application,"
                + " state, wait_event_type AS \"waitEventType\", wait_event AS \"waitEvent\","
                + " (extract(epoch FROM now() - query_start) * 1000)::bigint AS \"durationMs\","
                + " left(query, " + QUERY_READ_CHARS + ") AS query FROM pg_stat_activity"
                + " WHERE datname = current_database() AND state IS DISTINCT FROM 'idle' AND pid <> pg_backend_pid()"
                + " AND backend_type = 'client backend' ORDER BY query_start NULLS LAST LIMIT 50");
        // other applications' statements carry their data (an ALTER ROLE ... PASSWORD, a customer's name)
        for (JsonNode q : active) {
            ((ObjectNode) q).put("query", QueryText.withoutLiterals(q.path("query").textValue(), QUERY_CHARS));
        }
        out.set("activeQueries", active);
        ObjectNode autovacuum = Json.MAPPER.createObjectNode();
        autovacuum.setAll(reads.one("SELECT current_setting('autovacuum')::boolean AS enabled,"
                + " current_setting('autovacuum_max_workers')::int AS \"maxWorkers\","
                + " current_setting('autovacuum_naptime') AS naptime"));
        autovacuum.set("running", reads.rows("SELECT v.pid, c.relname AS \"table\", v.phase,"
                + " v.heap_blks_total AS \"heapBlocksTotal\", v.heap_blks_scanned AS \"heapBlocksScanned\","
                + " (extract(epoch FROM now() - a.xact_start) * 1000)::bigint AS \"durationMs\""
                + " FROM pg_stat_progress_vacuum v LEFT JOIN pg_class c ON c.oid = v.relid"
                + " LEFT JOIN pg_stat_activity a ON a.pid = v.pid WHERE v.datname = current_database()"));
        out.set("autovacuumStatus", autovacuum);
        out.set("bufferConfig", reads.one("SELECT current_setting('shared_buffers') AS \"sharedBuffers\","
                + " current_setting('effective_cache_size') AS \"effectiveCacheSize\","
                + " current_setting('work_mem') AS \"workMem\","
                + " current_setting('maintenance_work_mem') AS \"maintenanceWorkMem\","
                + " current_setting('max_connections')::int AS \"maxConnections\""));
        out.set("bufferUsage", reads.one("SELECT to_jsonb(b) AS bgwriter FROM pg_stat_bgwriter b"));
        out.set("tableSizes", reads.rows("SELECT c.relname AS \"table\","
                + " pg_total_relation_size(c.oid) AS \"totalBytes\", pg_relation_size(c.oid) AS \"tableBytes\","
                + " pg_indexes_size(c.oid) AS \"indexBytes\","
                + " COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS \"toastBytes\","
                + " GREATEST(c.reltuples, 0)::bigint AS \"estimatedRows\""
                + " FROM pg_class c WHERE c.relnamespace = 'queen'::regnamespace AND c.relkind IN ('r', 'p')"
                + " ORDER BY pg_total_relation_size(c.oid) DESC"));
        return Json.ok(out);
    }

    /** {@code part} as a percentage of {@code whole}, two decimals; null when {@code whole} is 0 (a leading space). */
    private static String percent(String part, String whole) {
        return " round(100.0 * " + part + " / NULLIF(" + whole + ", 0), 2)::float8";
    }
}
