-- 008_consumer_groups.sql: consumer-group administration (delete, subscription start, seek). Each statement
-- touches cursor rows only; a moved cursor also drops its lease and retry state.

-- Deletes a group's cursors (optionally on one queue) and, when asked, its recorded subscription starts, so a
-- group recreated under the same name starts fresh. Dead letters are kept.
DROP FUNCTION IF EXISTS queen.log_group_delete_v1(UUID, TEXT, TEXT, BOOLEAN);
CREATE FUNCTION queen.log_group_delete_v1(p_tenant UUID, p_group TEXT, p_queue TEXT, p_delete_metadata BOOLEAN)
RETURNS TABLE (deleted_partitions INT, metadata_deleted INT)
LANGUAGE plpgsql AS $$
DECLARE
    v_parts INT;
    v_meta INT := 0;
BEGIN
    -- lock the rows in (partition_id, group) order first: the global lock order, so a concurrent batch ack
    -- over the same rows cannot deadlock with this delete
    PERFORM 1 FROM queen.log_consumers c JOIN queen.log_partitions lp ON lp.id = c.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE q.tenant_id = p_tenant AND c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
     ORDER BY c.partition_id FOR UPDATE OF c;
    WITH d AS (
        DELETE FROM queen.log_consumers c USING queen.log_partitions lp, queen.queues q
         WHERE c.partition_id = lp.id AND lp.queue_id = q.id AND q.tenant_id = p_tenant
           AND c.consumer_group = p_group AND (p_queue IS NULL OR q.name = p_queue)
        RETURNING 1)
    SELECT count(*) INTO v_parts FROM d;
    IF p_delete_metadata THEN
        WITH d AS (
            DELETE FROM queen.consumer_groups_metadata m
             WHERE m.tenant_id = p_tenant AND m.consumer_group = p_group
               AND (p_queue IS NULL OR m.queue_id = (SELECT q.id FROM queen.queues q
                                                      WHERE q.tenant_id = p_tenant AND q.name = p_queue))
            RETURNING 1)
        SELECT count(*) INTO v_meta FROM d;
    END IF;
    RETURN QUERY SELECT v_parts, v_meta;
END $$;

-- Rewrites the recorded subscription start of a group on all queues (only affects partitions where the group
-- has no cursor yet; existing cursors move with seek).
CREATE OR REPLACE FUNCTION queen.log_group_subscription_v1(p_tenant UUID, p_group TEXT, p_ts TIMESTAMPTZ)
RETURNS INT
LANGUAGE sql AS $$
    WITH u AS (
        UPDATE queen.consumer_groups_metadata m SET subscription_timestamp = p_ts, subscription_mode = 'timestamp'
         WHERE m.tenant_id = p_tenant AND m.consumer_group = p_group
        RETURNING 1)
    SELECT count(*)::int FROM u
$$;

-- Moves a group's cursors on a queue (or one partition): to the end (p_ts NULL), or to just after the last
-- message created at or before p_ts (a forward walk: created_at is monotone per partition), never below
-- log_start - 1. Releases leases and resets retry/attempt state.
DROP FUNCTION IF EXISTS queen.log_group_seek_v1(UUID, TEXT, TEXT, TEXT, TIMESTAMPTZ);
CREATE FUNCTION queen.log_group_seek_v1(p_tenant UUID, p_group TEXT, p_queue TEXT, p_partition TEXT,
                                        p_ts TIMESTAMPTZ)
RETURNS TABLE (partition_name TEXT, committed BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
    -- rows locked in (partition_id, group) order first: the global lock order
    PERFORM 1 FROM queen.log_consumers c JOIN queen.log_partitions lp ON lp.id = c.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE c.consumer_group = p_group AND q.tenant_id = p_tenant AND q.name = p_queue
       AND (p_partition IS NULL OR lp.name = p_partition)
     ORDER BY c.partition_id FOR UPDATE OF c;
    RETURN QUERY
    UPDATE queen.log_consumers c
       SET committed = GREATEST(lp.log_start - 1, -1,
                CASE WHEN p_ts IS NULL THEN lp.last_offset
                     ELSE COALESCE((SELECT s.base_offset - 1 FROM queen.log_segments s
                                     WHERE s.partition_id = lp.id AND s.created_at > p_ts
                                     ORDER BY s.base_offset LIMIT 1), lp.last_offset) END),
           batch_end = NULL, worker_id = NULL, lease_expires_at = NULL, batch_retry_count = 0,
           attempt_count = 0, attempt_offset = NULL
      FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
     WHERE c.partition_id = lp.id AND c.consumer_group = p_group AND q.tenant_id = p_tenant AND q.name = p_queue
       AND (p_partition IS NULL OR lp.name = p_partition)
    RETURNING lp.name, c.committed;
END $$;

CREATE OR REPLACE FUNCTION queen.log_partition_exists_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT)
RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id
                    WHERE q.tenant_id = p_tenant AND q.name = p_queue AND lp.name = p_partition)
$$;

-- Whether the tenant has a queue of that name (a seek on any other answers 404, as on an unknown partition).
CREATE OR REPLACE FUNCTION queen.log_queue_exists_v1(p_tenant UUID, p_queue TEXT)
RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queue)
$$;
