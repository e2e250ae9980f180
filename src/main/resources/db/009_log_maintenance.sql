-- 009_log_maintenance.sql: the retention loop's SQL (time retention, completed retention, max-wait eviction,
-- hash-sidecar purge, partition cleanup). Every step takes exactly ONE partition row lock and runs in its own
-- autocommitted call, so retention never holds more than one push serializer at a time.

-- The queue a history row was about: retention_history has no FK (it outlives partitions), and once partition
-- cleanup deleted a partition its queue could no longer be found through it.
ALTER TABLE queen.retention_history ADD COLUMN IF NOT EXISTS queue_id UUID;
CREATE INDEX IF NOT EXISTS idx_retention_history_queue_executed_at ON queen.retention_history (queue_id, executed_at);

-- The work list of one cycle, in ONE statement: per-queue cutoffs computed from the queue rows at query time
-- (config changes apply on the next cycle, no restart), then per queue and rule a LATERAL range scan of a
-- partial watermark index, LIMIT due_cap. Cost scales with deletable work (and the number of queues), never with
-- the number of partitions: an idle partition has oldest_* NULL or newer than the cutoff and is not visited.
-- due_cap is inlined as a literal so the planner sees the real LIMIT (a parameter would get a generic estimate).
--   kind 'retention': cutoff_a = rule 1 (everything older), cutoff_b = rule 2 (older AND consumed by every group)
--   kind 'txns':      cutoff_a = sidecar cutoff now - GREATEST(dedup window, completed retention, 900 s)
--   kind 'max_wait':  cutoff_a = eviction cutoff (regardless of retention_enabled)
DROP FUNCTION IF EXISTS queen.log_retention_work_v1(TIMESTAMPTZ, INT);
CREATE FUNCTION queen.log_retention_work_v1(p_now TIMESTAMPTZ, p_due_cap INT)
RETURNS TABLE (kind TEXT, partition_id UUID, queue_id UUID, cutoff_a TIMESTAMPTZ, cutoff_b TIMESTAMPTZ)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_cap INT := LEAST(GREATEST(p_due_cap, 1), 1000000);
BEGIN
    RETURN QUERY EXECUTE format($q$
        WITH q AS (
            SELECT qu.id,
                   CASE WHEN qu.retention_enabled AND qu.retention_seconds > 0
                        THEN $1 - make_interval(secs => qu.retention_seconds) END AS all_cut,
                   CASE WHEN qu.retention_enabled AND qu.completed_retention_seconds > 0
                        THEN $1 - make_interval(secs => qu.completed_retention_seconds) END AS done_cut,
                   $1 - make_interval(secs => GREATEST(qu.dedup_window_seconds, qu.completed_retention_seconds, 900))
                        AS txn_cut,
                   CASE WHEN qu.max_wait_time_seconds > 0
                        THEN $1 - make_interval(secs => qu.max_wait_time_seconds) END AS wait_cut
              FROM queen.queues qu)
        SELECT 'retention'::text, p.id, q.id, q.all_cut, q.done_cut
          FROM q CROSS JOIN LATERAL (
                SELECT lp.id FROM queen.log_partitions lp
                 WHERE lp.queue_id = q.id AND lp.oldest_live_at IS NOT NULL
                   AND lp.oldest_live_at < GREATEST(q.all_cut, q.done_cut)
                   -- rule 2 alone can delete nothing until every group has consumed the first live offset: such
                   -- a partition is skipped here (one PK probe) instead of costing a locked no-op step every
                   -- cycle, and it cannot crowd deletable partitions out of the LIMIT
                   -- A group subscribed to the queue (consumer_groups_metadata) without a cursor here yet has
                   -- consumed nothing of the partition created since its subscription start ('all' = epoch):
                   -- while the first live segment is not older than such a start, rule 2 can delete nothing either.
                   -- Cost per candidate: one probe per subscribed group (idx_cgm_queue + the cursor PK).
                   AND (lp.oldest_live_at < q.all_cut
                        OR ((SELECT min(c.committed) FROM queen.log_consumers c WHERE c.partition_id = lp.id)
                            >= lp.log_start
                            AND NOT EXISTS (
                                SELECT 1 FROM queen.consumer_groups_metadata m
                                 WHERE m.queue_id = q.id AND m.subscription_timestamp <= lp.oldest_live_at
                                   AND NOT EXISTS (SELECT 1 FROM queen.log_consumers c
                                                    WHERE c.partition_id = lp.id
                                                      AND c.consumer_group = m.consumer_group))))
                 ORDER BY lp.oldest_live_at LIMIT %1$s) p
         WHERE q.all_cut IS NOT NULL OR q.done_cut IS NOT NULL
        UNION ALL
        SELECT 'txns'::text, p.id, q.id, q.txn_cut, NULL::timestamptz
          FROM q CROSS JOIN LATERAL (
                SELECT lp.id FROM queen.log_partitions lp
                 WHERE lp.queue_id = q.id AND lp.oldest_txn_at IS NOT NULL AND lp.oldest_txn_at < q.txn_cut
                 ORDER BY lp.oldest_txn_at LIMIT %1$s) p
        UNION ALL
        SELECT 'max_wait'::text, p.id, q.id, q.wait_cut, NULL::timestamptz
          FROM q CROSS JOIN LATERAL (
                SELECT lp.id FROM queen.log_partitions lp
                 WHERE lp.queue_id = q.id AND lp.oldest_live_at IS NOT NULL AND lp.oldest_live_at < q.wait_cut
                 ORDER BY lp.oldest_live_at LIMIT %1$s) p
         WHERE q.wait_cut IS NOT NULL
    $q$, v_cap) USING p_now;
END $fn$;

-- Where deletion under a time cutoff must stop, looking at no more than the next p_window segments from p_from:
-- the first base_offset whose created_at >= p_cutoff; if every segment of the window is older, one past the
-- window's last end_offset (the next step continues from there); with no segments, p_from. created_at is
-- monotone per partition (invariant 2), so "older than the cutoff" is a prefix and a forward PK walk finds it.
-- The walk stops at the first young segment (COALESCE evaluates the second walk only when the first found none):
-- a step reads what it deletes plus one row, not the whole window. Reading the window whole cost a step ~1.3 ms
-- in the soak shape, where a partition holds ~200 live segments and a 5 s cycle deletes ~20 of them.
CREATE OR REPLACE FUNCTION queen.log_retention_boundary_v1(p_pid UUID, p_from BIGINT, p_cutoff TIMESTAMPTZ,
                                                           p_window INT)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(
        (SELECT w.base_offset
           FROM (SELECT s.base_offset, s.created_at FROM queen.log_segments s
                  WHERE s.partition_id = p_pid AND s.base_offset >= p_from
                  ORDER BY s.base_offset LIMIT p_window) w
          WHERE w.created_at >= p_cutoff ORDER BY w.base_offset LIMIT 1),
        (SELECT max(w.end_offset) + 1
           FROM (SELECT s.end_offset FROM queen.log_segments s
                  WHERE s.partition_id = p_pid AND s.base_offset >= p_from
                  ORDER BY s.base_offset LIMIT p_window) w),
        p_from)
$$;

-- Deletes the whole segments of a partition that lie in [p_start, p_bound) (a contiguous prefix: p_start is its
-- log_start), advances log_start (never backwards) and oldest_live_at (the new first live segment's created_at,
-- NULL when none) and audits the deletion in retention_history as p_type. The caller holds the partition's row
-- lock (FOR UPDATE) and chose the bound: the retention step and Kafka DeleteRecords (021_kafka.sql).
CREATE OR REPLACE FUNCTION queen.log_delete_prefix_v1(p_pid UUID, p_queue UUID, p_start BIGINT, p_bound BIGINT,
                                                      p_type TEXT, OUT deleted INT, OUT messages BIGINT,
                                                      OUT new_log_start BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    v_end BIGINT;
BEGIN
    new_log_start := p_start;
    -- base_offset < bound bounds the PK range scan; end_offset < bound keeps only whole segments
    WITH d AS (
        DELETE FROM queen.log_segments s
         WHERE s.partition_id = p_pid AND s.base_offset >= p_start AND s.base_offset < p_bound
           AND s.end_offset < p_bound
        RETURNING s.end_offset, s.end_offset - s.base_offset + 1 AS n)
    SELECT count(*)::int, COALESCE(sum(d.n), 0)::bigint, max(d.end_offset) INTO deleted, messages, v_end FROM d;
    IF deleted = 0 THEN
        RETURN;
    END IF;
    UPDATE queen.log_partitions lp
       SET log_start = GREATEST(lp.log_start, v_end + 1),
           oldest_live_at = (SELECT s.created_at FROM queen.log_segments s WHERE s.partition_id = p_pid
                              ORDER BY s.base_offset LIMIT 1)
     WHERE lp.id = p_pid
    RETURNING lp.log_start INTO new_log_start;
    INSERT INTO queen.retention_history (partition_id, queue_id, messages_deleted, retention_type)
    VALUES (p_pid, p_queue, messages, p_type);
END $$;

-- One retention step on one partition, under its row lock (the only lock taken):
--   rule 1 (p_all_cutoff): everything created before the cutoff;
--   rule 2 (p_completed_cutoff): created before the cutoff AND consumed by every consumer group of the partition
--     (boundary capped at MIN(committed) + 1; no consumer rows -> rule 2 deletes nothing) AND by every group
--     subscribed to the queue that has no cursor here yet: such a group will start at its subscription timestamp
--     (log_seed_offset_v1), so only segments created before it are behind it; 'all' (epoch) keeps everything.
-- Deletes only WHOLE segments of a contiguous prefix (end_offset < boundary), at most p_max_rows, in one ranged
-- DELETE on the primary key, then advances log_start (never backwards) and oldest_live_at (the new first live
-- segment's created_at, NULL when none) in the same transaction. A NULL cutoff disables its rule.
-- done = fewer than p_max_rows segments were deletable (nothing left for these cutoffs).
DROP FUNCTION IF EXISTS queen.log_retention_step_v1(UUID, TIMESTAMPTZ, TIMESTAMPTZ, INT, TEXT);
CREATE FUNCTION queen.log_retention_step_v1(p_pid UUID, p_all_cutoff TIMESTAMPTZ, p_completed_cutoff TIMESTAMPTZ,
                                            p_max_rows INT, p_history_type TEXT DEFAULT NULL,
                                            OUT deleted INT, OUT messages BIGINT, OUT new_log_start BIGINT,
                                            OUT done BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    v_queue  UUID;
    v_start  BIGINT;
    v_b1     BIGINT;
    v_b2     BIGINT;
    v_min    BIGINT;
    v_bound  BIGINT;
    v_type   TEXT;
    v_sub    TIMESTAMPTZ;
BEGIN
    deleted := 0; messages := 0; done := TRUE;
    SELECT lp.queue_id, lp.log_start INTO v_queue, v_start
      FROM queen.log_partitions lp WHERE lp.id = p_pid FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;  -- deleted meanwhile (partition cleanup, queue delete): nothing to do
    END IF;
    new_log_start := v_start;
    v_b1 := v_start;
    v_b2 := v_start;
    IF p_all_cutoff IS NOT NULL THEN
        v_b1 := queen.log_retention_boundary_v1(p_pid, v_start, p_all_cutoff, p_max_rows);
    END IF;
    IF p_completed_cutoff IS NOT NULL THEN
        SELECT min(c.committed) INTO v_min FROM queen.log_consumers c WHERE c.partition_id = p_pid;
        IF v_min IS NOT NULL THEN
            SELECT min(m.subscription_timestamp) INTO v_sub FROM queen.consumer_groups_metadata m
             WHERE m.queue_id = v_queue
               AND NOT EXISTS (SELECT 1 FROM queen.log_consumers c
                                WHERE c.partition_id = p_pid AND c.consumer_group = m.consumer_group);
            -- LEAST ignores a NULL v_sub (no cursorless subscribed group)
            v_b2 := LEAST(queen.log_retention_boundary_v1(p_pid, v_start, LEAST(p_completed_cutoff, v_sub),
                                                          p_max_rows), v_min + 1);
        END IF;
    END IF;
    v_bound := GREATEST(v_start, v_b1, v_b2);
    IF v_bound <= v_start THEN
        RETURN;
    END IF;
    v_type := COALESCE(p_history_type, CASE WHEN v_b2 > v_b1 THEN 'completed_retention' ELSE 'retention' END);
    SELECT d.deleted, d.messages, d.new_log_start INTO deleted, messages, new_log_start
      FROM queen.log_delete_prefix_v1(p_pid, v_queue, v_start, v_bound, v_type) d;
    done := deleted < p_max_rows;
END $$;

-- max_wait_time_seconds eviction: rule 1 with the eviction cutoff, regardless of retention_enabled. Deletes
-- unconsumed data by design; audited as max_wait_time_eviction.
DROP FUNCTION IF EXISTS queen.log_evict_max_wait_step_v1(UUID, TIMESTAMPTZ, INT);
CREATE FUNCTION queen.log_evict_max_wait_step_v1(p_pid UUID, p_cutoff TIMESTAMPTZ, p_max_rows INT,
                                                 OUT deleted INT, OUT messages BIGINT, OUT new_log_start BIGINT,
                                                 OUT done BOOLEAN)
LANGUAGE sql AS $$
    SELECT r.deleted, r.messages, r.new_log_start, r.done
      FROM queen.log_retention_step_v1(p_pid, p_cutoff, NULL, p_max_rows, 'max_wait_time_eviction') r
$$;

-- Hash-sidecar purge on its own clock, same pattern: under the partition row lock, delete the prefix of
-- log_txns rows created before p_cutoff (at most p_max_rows), advance txns_start (never backwards) and
-- oldest_txn_at (NULL when the sidecar is empty). Independent of retention_enabled: the sidecar is O(rate x
-- window). An ack whose hash is gone resolves as unknown -> not acked -> redelivery, never loss.
DROP FUNCTION IF EXISTS queen.log_txns_purge_step_v1(UUID, TIMESTAMPTZ, INT);
CREATE FUNCTION queen.log_txns_purge_step_v1(p_pid UUID, p_cutoff TIMESTAMPTZ, p_max_rows INT,
                                             OUT deleted INT, OUT new_txns_start BIGINT, OUT done BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    v_start BIGINT;
    v_bound BIGINT;
    v_end   BIGINT;
BEGIN
    deleted := 0; done := TRUE;
    SELECT lp.txns_start INTO v_start FROM queen.log_partitions lp WHERE lp.id = p_pid FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    new_txns_start := v_start;
    -- the boundary as in log_retention_boundary_v1: the walk stops at the first row inside the window
    SELECT COALESCE(
        (SELECT w.base_offset
           FROM (SELECT t.base_offset, t.created_at FROM queen.log_txns t
                  WHERE t.partition_id = p_pid AND t.base_offset >= v_start
                  ORDER BY t.base_offset LIMIT p_max_rows) w
          WHERE w.created_at >= p_cutoff ORDER BY w.base_offset LIMIT 1),
        (SELECT max(w.end_offset) + 1
           FROM (SELECT t.end_offset FROM queen.log_txns t
                  WHERE t.partition_id = p_pid AND t.base_offset >= v_start
                  ORDER BY t.base_offset LIMIT p_max_rows) w),
        v_start)
      INTO v_bound;
    IF v_bound <= v_start THEN
        RETURN;
    END IF;
    WITH d AS (
        DELETE FROM queen.log_txns t
         WHERE t.partition_id = p_pid AND t.base_offset >= v_start AND t.base_offset < v_bound
           AND t.end_offset < v_bound
        RETURNING t.end_offset)
    SELECT count(*)::int, max(d.end_offset) INTO deleted, v_end FROM d;
    done := deleted < p_max_rows;
    IF deleted = 0 THEN
        RETURN;
    END IF;
    UPDATE queen.log_partitions lp
       SET txns_start = GREATEST(lp.txns_start, v_end + 1),
           oldest_txn_at = (SELECT t.created_at FROM queen.log_txns t WHERE t.partition_id = p_pid
                             ORDER BY t.base_offset LIMIT 1)
     WHERE lp.id = p_pid
    RETURNING lp.txns_start INTO new_txns_start;
END $$;

-- Is this partition dead, i.e. safe to delete? Long inactive (created and last written before the cutoff), no
-- segments, no dead letter (a dead letter pins its partition), and no consumer that is leasing now or was active
-- since the cutoff (created_at matters: auto-ack-only groups leave no lease timestamps).
-- plpgsql (not sql): the body names queen_streams.state, created by a later file (013), and a plpgsql body is
-- only resolved when it runs. A partition holding stream state is never dead (the state is a query's memory).
CREATE OR REPLACE FUNCTION queen.log_partition_dead_v1(p_pid UUID, p_cutoff TIMESTAMPTZ)
RETURNS BOOLEAN
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM queen.log_partitions lp
                    WHERE lp.id = p_pid AND lp.created_at < p_cutoff AND lp.last_write_at < p_cutoff)
       AND NOT EXISTS (SELECT 1 FROM queen.log_segments s WHERE s.partition_id = p_pid)
       AND NOT EXISTS (SELECT 1 FROM queen.log_dlq d WHERE d.partition_id = p_pid)
       AND NOT EXISTS (SELECT 1 FROM queen_streams.state st WHERE st.partition_id = p_pid)
       AND NOT EXISTS (SELECT 1 FROM queen.log_consumers c
                        WHERE c.partition_id = p_pid
                          AND ((c.batch_end IS NOT NULL
                                AND (c.lease_expires_at IS NULL OR c.lease_expires_at > clock_timestamp()))
                               OR c.lease_expires_at >= p_cutoff OR c.lease_acquired_at >= p_cutoff
                               OR c.created_at >= p_cutoff));
END $$;

-- One partition-cleanup step: up to p_max_rows candidates with id > p_after, locked in ascending id (the global
-- lock order) with SKIP LOCKED (a busy partition is not dead anyway), re-checked under the lock, then for each
-- dead one: its log_txns rows FIRST (no FK: an orphaned sidecar row would be unreachable forever), the audit
-- row, and the partition row (cascades to consumers and segments). last_id lets the caller walk on past
-- candidates that stay vetoed; done = this was the last page.
DROP FUNCTION IF EXISTS queen.log_partition_cleanup_step_v1(TIMESTAMPTZ, INT, UUID);
CREATE FUNCTION queen.log_partition_cleanup_step_v1(p_cutoff TIMESTAMPTZ, p_max_rows INT DEFAULT 1000,
                                                    p_after UUID DEFAULT NULL,
                                                    OUT deleted INT, OUT last_id UUID, OUT done BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    v_ids UUID[];
    v_pid UUID;
BEGIN
    deleted := 0;
    SELECT array_agg(x.id ORDER BY x.id) INTO v_ids
      FROM (SELECT lp.id FROM queen.log_partitions lp
             WHERE (p_after IS NULL OR lp.id > p_after)
               AND lp.oldest_live_at IS NULL AND lp.created_at < p_cutoff AND lp.last_write_at < p_cutoff
             ORDER BY lp.id LIMIT p_max_rows
             FOR UPDATE SKIP LOCKED) x;
    done := COALESCE(cardinality(v_ids), 0) < p_max_rows;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;
    last_id := v_ids[cardinality(v_ids)];
    FOREACH v_pid IN ARRAY v_ids LOOP
        -- skips a partition of a queue some push holds the membership lock of (004_queue.sql): it may be about
        -- to lock this partition
        IF queen.log_partition_dead_v1(v_pid, p_cutoff)
           AND pg_try_advisory_xact_lock((SELECT queen.queue_lock_key_v1(q.tenant_id, q.name)
                                            FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
                                           WHERE lp.id = v_pid)) THEN
            DELETE FROM queen.log_txns t WHERE t.partition_id = v_pid;
            DELETE FROM queen.message_trace_names n WHERE n.partition_id = v_pid;
            DELETE FROM queen.message_traces t WHERE t.partition_id = v_pid;
            INSERT INTO queen.retention_history (partition_id, queue_id, messages_deleted, retention_type)
            SELECT v_pid, lp.queue_id, 0, '__partition_deleted__' FROM queen.log_partitions lp WHERE lp.id = v_pid;
            DELETE FROM queen.log_partitions lp WHERE lp.id = v_pid;
            deleted := deleted + 1;
        END IF;
    END LOOP;
END $$;

-- What retention removed, grouped by queue and type, for GET /api/v1/analytics/retention.
CREATE OR REPLACE FUNCTION queen.retention_history_summary_v1(p_tenant UUID, p_queue TEXT, p_from TIMESTAMPTZ,
                                                              p_to TIMESTAMPTZ)
RETURNS TABLE (queue_name TEXT, retention_type TEXT, messages BIGINT, events BIGINT, first_at TIMESTAMPTZ,
               last_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT q.name::text, h.retention_type::text, COALESCE(sum(h.messages_deleted), 0)::bigint, count(*)::bigint,
           min(h.executed_at), max(h.executed_at)
      FROM queen.retention_history h
      JOIN queen.queues q ON q.id = h.queue_id
     WHERE q.tenant_id = p_tenant AND (p_queue IS NULL OR q.name = p_queue)
       AND h.executed_at >= p_from AND h.executed_at <= p_to
     GROUP BY q.name, h.retention_type
     ORDER BY q.name, h.retention_type
$$;

-- The same rows bucketed in time (the dashboard's series), all queues of the tenant or one.
CREATE OR REPLACE FUNCTION queen.retention_history_series_v1(p_tenant UUID, p_queue TEXT, p_from TIMESTAMPTZ,
                                                             p_to TIMESTAMPTZ, p_bucket_minutes INT)
RETURNS TABLE (bucket TIMESTAMPTZ, retention_type TEXT, messages BIGINT, events BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT date_bin(make_interval(mins => p_bucket_minutes), h.executed_at, TIMESTAMPTZ 'epoch'),
           h.retention_type::text, COALESCE(sum(h.messages_deleted), 0)::bigint, count(*)::bigint
      FROM queen.retention_history h
      JOIN queen.queues q ON q.id = h.queue_id
     WHERE q.tenant_id = p_tenant AND (p_queue IS NULL OR q.name = p_queue)
       AND h.executed_at >= p_from AND h.executed_at <= p_to
     GROUP BY 1, 2
     ORDER BY 1, 2
$$;

-- Sidecar, dead-letter and trace rows whose partition no longer exists (none of these tables has a foreign key,
-- by design): unreachable forever, since every purge walks live partitions. Queue delete and partition cleanup
-- delete them first, under locks that exclude a concurrent writer; this sweep removes what an older broker (whose
-- queue delete could race a push that created a partition) left behind. The distinct partition ids are found by a
-- skip scan of each table's leading partition_id index (one probe per distinct partition, not a scan of the rows),
-- at most p_max_partitions orphaned partitions per call.
DROP FUNCTION IF EXISTS queen.log_orphan_sweep_v1(INT);
CREATE FUNCTION queen.log_orphan_sweep_v1(p_max_partitions INT DEFAULT 1000,
                                          OUT txn_rows INT, OUT dlq_rows INT, OUT trace_rows INT, OUT partitions INT)
LANGUAGE plpgsql AS $$
DECLARE
    v_ids UUID[];
BEGIN
    WITH RECURSIVE t AS (
        (SELECT x.partition_id FROM queen.log_txns x ORDER BY x.partition_id LIMIT 1)
        UNION ALL
        SELECT (SELECT x.partition_id FROM queen.log_txns x WHERE x.partition_id > t.partition_id
                 ORDER BY x.partition_id LIMIT 1)
          FROM t WHERE t.partition_id IS NOT NULL),
    d AS (
        (SELECT x.partition_id FROM queen.log_dlq x ORDER BY x.partition_id LIMIT 1)
        UNION ALL
        SELECT (SELECT x.partition_id FROM queen.log_dlq x WHERE x.partition_id > d.partition_id
                 ORDER BY x.partition_id LIMIT 1)
          FROM d WHERE d.partition_id IS NOT NULL),
    m AS (
        (SELECT x.partition_id FROM queen.message_traces x ORDER BY x.partition_id LIMIT 1)
        UNION ALL
        SELECT (SELECT x.partition_id FROM queen.message_traces x WHERE x.partition_id > m.partition_id
                 ORDER BY x.partition_id LIMIT 1)
          FROM m WHERE m.partition_id IS NOT NULL)
    SELECT array_agg(o.pid) INTO v_ids
      FROM (SELECT u.pid FROM (SELECT t.partition_id AS pid FROM t UNION SELECT d.partition_id FROM d
                               UNION SELECT m.partition_id FROM m) u
             WHERE u.pid IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.id = u.pid)
             ORDER BY u.pid LIMIT GREATEST(p_max_partitions, 1)) o;
    partitions := COALESCE(cardinality(v_ids), 0);
    txn_rows := 0; dlq_rows := 0; trace_rows := 0;
    IF partitions = 0 THEN
        RETURN;
    END IF;
    -- a partition id is never reused (gen_random_uuid), so a row found orphaned stays orphaned
    WITH x AS (DELETE FROM queen.log_txns t WHERE t.partition_id = ANY (v_ids) RETURNING 1)
    SELECT count(*)::int INTO txn_rows FROM x;
    WITH x AS (DELETE FROM queen.log_dlq d WHERE d.partition_id = ANY (v_ids) RETURNING 1)
    SELECT count(*)::int INTO dlq_rows FROM x;
    DELETE FROM queen.message_trace_names n WHERE n.partition_id = ANY (v_ids);
    WITH x AS (DELETE FROM queen.message_traces t WHERE t.partition_id = ANY (v_ids) RETURNING 1)
    SELECT count(*)::int INTO trace_rows FROM x;
END $$;
