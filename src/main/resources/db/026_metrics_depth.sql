-- 026_metrics_depth.sql: what the queues held, minute by minute: pending messages and dead letters of every queue
-- as they were when sampled, for the history charts of GET /api/v1/status. A history rebuilt from today's rows
-- (the current figures walked back with each minute's counts) is rewritten by anything that changes those rows
-- afterwards: a replay removes the dead letters the walk would count back, so a series that read 25 -> 70 reads
-- 0, 0, 0 after it. A sample is never changed once written. Applied at every boot, idempotently.
--
-- Volume: one row per minute (metrics_depth_samples) plus one row per (minute, queue holding pending messages or
-- dead letters); an empty queue writes no row, and a sampled minute without a row for a queue means 0 there.
-- Purged with the other per-minute rows (queen.metrics.retention-days).

CREATE TABLE IF NOT EXISTS queen.metrics_depth_samples (
    bucket     TIMESTAMPTZ PRIMARY KEY,            -- the minute sampled (date_trunc('minute', sampled_at))
    sampled_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS queen.metrics_depth_minute (
    bucket       TIMESTAMPTZ NOT NULL,
    tenant_id    UUID NOT NULL,
    queue_name   TEXT NOT NULL,
    pending      BIGINT NOT NULL,                  -- as status_partition_figures_v1 counts it then
    dead_letters BIGINT NOT NULL,                  -- log_dlq rows of the queue then (every group's)
    PRIMARY KEY (bucket, tenant_id, queue_name)
);
CREATE INDEX IF NOT EXISTS idx_metrics_depth_minute_queue ON queen.metrics_depth_minute (tenant_id, queue_name, bucket);

-- Samples the current minute once for the whole cluster: the first broker to claim the minute (each broker calls
-- this after its per-minute flush) writes every queue's pending and dead-letter figures in the same transaction;
-- the others find the minute claimed and read nothing (a claim waits for an uncommitted one, so a minute is
-- written once). Returns the queue rows written, or -1 when the minute was already sampled.
-- Cost for the claiming broker: O(partitions + cursors + dead letters) of every queue (status_partition_figures_v1),
-- once a minute for the cluster.
CREATE OR REPLACE FUNCTION queen.metrics_depth_sample_v1()
RETURNS INT
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    b TIMESTAMPTZ := date_trunc('minute', now());
    n INT;
BEGIN
    INSERT INTO queen.metrics_depth_samples (bucket, sampled_at) VALUES (b, now()) ON CONFLICT (bucket) DO NOTHING;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    INSERT INTO queen.metrics_depth_minute (bucket, tenant_id, queue_name, pending, dead_letters)
    SELECT b, q.tenant_id, q.name, sum(f.pending), sum(f.dead_letter)
      FROM queen.status_partition_figures_v1(ARRAY(SELECT x.id FROM queen.queues x)) f
      JOIN queen.queues q ON q.id = f.queue_id
     GROUP BY q.tenant_id, q.name
    HAVING sum(f.pending) > 0 OR sum(f.dead_letter) > 0
        -- rows of a minute whose claim was purged before them: the first sample stands
        ON CONFLICT (bucket, tenant_id, queue_name) DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END $$;

-- The recorded depth of the tenant's queues matching the filters (NULL = any), one row per p_bucket_minutes bucket
-- of [p_from, p_to] that holds a sample: the bucket's first sample (what the queues held when the bucket began,
-- give or take the flush's delay), summed over the matching queues. A bucket without a sample has no row (no
-- broker ran then, or it was before this table): the chart leaves a gap rather than inventing a figure.
-- Cost: index range scans of the window's sample rows and of the matching queues' depth rows.
CREATE OR REPLACE FUNCTION queen.metrics_depth_series_v1(p_tenant UUID, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
        p_bucket_minutes INT, p_queue TEXT, p_namespace TEXT, p_task TEXT)
RETURNS TABLE (bucket TIMESTAMPTZ, sampled_at TIMESTAMPTZ, pending BIGINT, dead_letters BIGINT)
LANGUAGE sql STABLE AS $$
    WITH s AS (
        SELECT DISTINCT ON (1)
               date_bin(make_interval(mins => p_bucket_minutes), x.bucket, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS b,
               x.bucket AS minute, x.sampled_at
          FROM queen.metrics_depth_samples x
         WHERE x.bucket >= date_trunc('minute', p_from) AND x.bucket <= p_to
         ORDER BY 1, x.bucket)
    SELECT s.b, s.sampled_at, COALESCE(sum(d.pending), 0)::bigint, COALESCE(sum(d.dead_letters), 0)::bigint
      FROM s
      LEFT JOIN queen.metrics_depth_minute d
        ON d.bucket = s.minute AND d.tenant_id = p_tenant AND (p_queue IS NULL OR d.queue_name = p_queue)
       AND (p_namespace IS NULL AND p_task IS NULL OR EXISTS (
            SELECT 1 FROM queen.queues q WHERE q.tenant_id = d.tenant_id AND q.name = d.queue_name
               AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task)))
     GROUP BY s.b, s.sampled_at
     ORDER BY s.b
$$;

-- Retention step of the depth rows: deletes at most p_max_rows rows older than p_cutoff from each table (index
-- range scans on the bucket-leading keys). done = nothing left to delete.
CREATE OR REPLACE FUNCTION queen.metrics_depth_purge_step_v1(p_cutoff TIMESTAMPTZ, p_max_rows INT)
RETURNS TABLE (deleted INT, done BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    m INT;
    s INT;
BEGIN
    DELETE FROM queen.metrics_depth_minute d
     WHERE (d.bucket, d.tenant_id, d.queue_name) IN (
        SELECT x.bucket, x.tenant_id, x.queue_name FROM queen.metrics_depth_minute x
         WHERE x.bucket < p_cutoff ORDER BY x.bucket LIMIT p_max_rows);
    GET DIAGNOSTICS m = ROW_COUNT;
    DELETE FROM queen.metrics_depth_samples d
     WHERE d.bucket IN (SELECT x.bucket FROM queen.metrics_depth_samples x
                         WHERE x.bucket < p_cutoff ORDER BY x.bucket LIMIT p_max_rows);
    GET DIAGNOSTICS s = ROW_COUNT;
    RETURN QUERY SELECT m + s, m < p_max_rows AND s < p_max_rows;
END $$;
