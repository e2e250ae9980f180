-- 015_metrics.sql: per-minute operation buckets per queue and per broker, the per-broker system sample, the
-- cluster lifetime totals, their one-statement writer and the purge step. Applied at every boot, idempotently.
--
-- Volume: one row per (minute, broker, active queue) plus one row per (minute, broker). Idle queues write no
-- row. The primary keys lead with the bucket time, so the purge and every time-range read are index range scans;
-- (tenant_id, queue_name, bucket) serves the per-queue reads. A queue is known by (tenant_id, queue_name), as in
-- queen.queues; the rows summing the queues beyond the broker's label cap carry queue_name '_other' and the nil
-- tenant, so no tenant's read ever returns them.

-- an early layout without tenant_id held no data worth keeping (per-minute counts): replaced
DO $$
BEGIN
    IF to_regclass('queen.metrics_queue_minute') IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM information_schema.columns
             WHERE table_schema = 'queen' AND table_name = 'metrics_queue_minute' AND column_name = 'tenant_id') THEN
        DROP TABLE queen.metrics_queue_minute;
    END IF;
END $$;
DROP FUNCTION IF EXISTS queen.metrics_flush_v1(TIMESTAMPTZ, TEXT, INT, INT, TEXT[], BIGINT[], BIGINT[],
    DOUBLE PRECISION[]);

-- The counters of one minute, which the queue and the broker minute tables both take (LIKE ... INCLUDING
-- DEFAULTS): one declaration of the columns metrics_minute_merge_v1 adds up. Holds no rows.
CREATE TABLE IF NOT EXISTS queen.metrics_minute_counters (
    push_requests BIGINT NOT NULL DEFAULT 0,
    push_messages BIGINT NOT NULL DEFAULT 0,
    pop_requests  BIGINT NOT NULL DEFAULT 0,
    pop_messages  BIGINT NOT NULL DEFAULT 0,
    pop_empty     BIGINT NOT NULL DEFAULT 0,
    ack_requests  BIGINT NOT NULL DEFAULT 0,
    ack_messages  BIGINT NOT NULL DEFAULT 0,
    ack_failed    BIGINT NOT NULL DEFAULT 0,
    transactions  BIGINT NOT NULL DEFAULT 0,
    dlq           BIGINT NOT NULL DEFAULT 0,
    lag_count     BIGINT NOT NULL DEFAULT 0,   -- delivered messages whose lag was measured
    lag_sum_ms    BIGINT NOT NULL DEFAULT 0,   -- avg lag = lag_sum_ms / lag_count
    lag_max_ms    BIGINT NOT NULL DEFAULT 0,
    parked        BIGINT NOT NULL DEFAULT 0    -- peak of pops parked (on the queue, on the broker) in the minute
);

CREATE TABLE IF NOT EXISTS queen.metrics_queue_minute (
    bucket        TIMESTAMPTZ NOT NULL,
    hostname      TEXT NOT NULL,
    worker_id     INTEGER NOT NULL,
    tenant_id     UUID NOT NULL,
    queue_name    TEXT NOT NULL,
    LIKE queen.metrics_minute_counters INCLUDING DEFAULTS,
    PRIMARY KEY (bucket, hostname, worker_id, tenant_id, queue_name)
);
CREATE INDEX IF NOT EXISTS idx_metrics_queue_minute_queue ON queen.metrics_queue_minute (tenant_id, queue_name, bucket);

-- One row per broker and minute: the broker's totals over all queues (plus activity with no queue and database
-- errors) and its system sample (process CPU, memory, DB pool, threads).
CREATE TABLE IF NOT EXISTS queen.metrics_broker_minute (
    bucket          TIMESTAMPTZ NOT NULL,
    hostname        TEXT NOT NULL,
    worker_id       INTEGER NOT NULL,
    port            INTEGER,
    LIKE queen.metrics_minute_counters INCLUDING DEFAULTS,
    db_errors       BIGINT NOT NULL DEFAULT 0,
    samples         INTEGER NOT NULL DEFAULT 0,  -- system samples folded into the row (1 per flush)
    cpu_user_pct    DOUBLE PRECISION,            -- process CPU over the interval, % of one core
    cpu_system_pct  DOUBLE PRECISION,
    rss_bytes       BIGINT,
    heap_used       BIGINT,
    heap_committed  BIGINT,
    heap_max        BIGINT,
    nonheap_used    BIGINT,
    db_pool_max     INTEGER,
    db_pool_active  INTEGER,
    db_pool_idle    INTEGER,
    db_pool_waiting INTEGER,
    threads         INTEGER,
    daemon_threads  INTEGER,
    PRIMARY KEY (bucket, hostname, worker_id)
);

-- Cluster lifetime totals: every broker's flush adds its deltas (one row, one UPDATE a minute per broker).
-- Purging buckets does not lower them.
CREATE TABLE IF NOT EXISTS queen.metrics_cluster_totals (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    push_requests BIGINT NOT NULL DEFAULT 0,
    push_messages BIGINT NOT NULL DEFAULT 0,
    pop_requests  BIGINT NOT NULL DEFAULT 0,
    pop_messages  BIGINT NOT NULL DEFAULT 0,
    ack_requests  BIGINT NOT NULL DEFAULT 0,
    ack_messages  BIGINT NOT NULL DEFAULT 0,
    ack_failed    BIGINT NOT NULL DEFAULT 0,
    transactions  BIGINT NOT NULL DEFAULT 0,
    dlq           BIGINT NOT NULL DEFAULT 0,
    db_errors     BIGINT NOT NULL DEFAULT 0,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO queen.metrics_cluster_totals (id) VALUES (1) ON CONFLICT (id) DO NOTHING;

-- The ON CONFLICT assignments that add a second flush of a minute to the row already there (alias m), shared by
-- the queue and broker minute tables: the counters both have, plus p_more, are summed; the peaks keep the larger.
CREATE OR REPLACE FUNCTION queen.metrics_minute_merge_v1(p_more TEXT[])
RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(format('%1$I = m.%1$I + EXCLUDED.%1$I', c), ', ' ORDER BY n)
           || ', lag_max_ms = GREATEST(m.lag_max_ms, EXCLUDED.lag_max_ms), parked = GREATEST(m.parked, EXCLUDED.parked)'
      FROM unnest(ARRAY['push_requests', 'push_messages', 'pop_requests', 'pop_messages', 'pop_empty',
                        'ack_requests', 'ack_messages', 'ack_failed', 'transactions', 'dlq', 'lag_count',
                        'lag_sum_ms'] || p_more) WITH ORDINALITY AS u(c, n)
$$;

-- One broker's flush, one statement. p_counts is flat: 15 values per queue, in this order: push_requests,
-- push_messages, pop_requests, pop_messages, pop_empty, ack_requests, ack_messages, ack_failed, transactions, dlq,
-- lag_count, lag_sum_ms, db_errors (ignored per queue), lag_max_ms, parked. p_broker holds the same 15 values for
-- the broker's totals; p_tenants: each queue's tenant (NULL for '_other': stored as the nil UUID); p_system: cpu_user_pct, cpu_system_pct, rss, heap_used, heap_committed, heap_max,
-- nonheap_used, pool max, active, idle, waiting, threads, daemon threads. A second flush into the same minute
-- adds to it (sums; max for the peaks). Returns the cluster totals after adding this broker's deltas.
CREATE OR REPLACE FUNCTION queen.metrics_flush_v1(p_bucket TIMESTAMPTZ, p_hostname TEXT, p_worker_id INT,
        p_port INT, p_queues TEXT[], p_counts BIGINT[], p_broker BIGINT[], p_system DOUBLE PRECISION[],
        p_tenants UUID[])
RETURNS TABLE (push_requests BIGINT, push_messages BIGINT, pop_requests BIGINT, pop_messages BIGINT,
        ack_requests BIGINT, ack_messages BIGINT, ack_failed BIGINT, transactions BIGINT, dlq BIGINT,
        db_errors BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(p_tenants) IS DISTINCT FROM cardinality(p_queues) THEN
        RAISE EXCEPTION 'metrics_flush_v1: % tenants for % queues', cardinality(p_tenants), cardinality(p_queues);
    END IF;
    -- the two upserts share their merge (metrics_minute_merge_v1), so they are built as text
    EXECUTE format($q$
    INSERT INTO queen.metrics_queue_minute AS m (bucket, hostname, worker_id, tenant_id, queue_name, push_requests,
        push_messages, pop_requests, pop_messages, pop_empty, ack_requests, ack_messages, ack_failed, transactions,
        dlq, lag_count, lag_sum_ms, lag_max_ms, parked)
    SELECT $1, $2, $3, COALESCE($4[i], '00000000-0000-0000-0000-000000000000'::uuid),
           $5[i], $6[o + 1], $6[o + 2], $6[o + 3], $6[o + 4], $6[o + 5], $6[o + 6], $6[o + 7], $6[o + 8], $6[o + 9],
           $6[o + 10], $6[o + 11], $6[o + 12], $6[o + 14], $6[o + 15]
      FROM generate_subscripts($5, 1) AS i, LATERAL (SELECT (i - 1) * 15 AS o) AS x
     ORDER BY 4, 5
    ON CONFLICT (bucket, hostname, worker_id, tenant_id, queue_name) DO UPDATE SET %s$q$,
        queen.metrics_minute_merge_v1('{}'))
    USING p_bucket, p_hostname, p_worker_id, p_tenants, p_queues, p_counts;

    EXECUTE format($q$
    INSERT INTO queen.metrics_broker_minute AS m (bucket, hostname, worker_id, port, push_requests, push_messages,
        pop_requests, pop_messages, pop_empty, ack_requests, ack_messages, ack_failed, transactions, dlq, lag_count,
        lag_sum_ms, db_errors, lag_max_ms, parked, samples, cpu_user_pct, cpu_system_pct, rss_bytes, heap_used,
        heap_committed, heap_max, nonheap_used, db_pool_max, db_pool_active, db_pool_idle, db_pool_waiting, threads,
        daemon_threads)
    VALUES ($1, $2, $3, $4, $5[1], $5[2], $5[3], $5[4], $5[5], $5[6], $5[7], $5[8], $5[9], $5[10], $5[11], $5[12],
        $5[13], $5[14], $5[15], 1, $6[1], $6[2], $6[3]::bigint, $6[4]::bigint, $6[5]::bigint, $6[6]::bigint,
        $6[7]::bigint, $6[8]::int, $6[9]::int, $6[10]::int, $6[11]::int, $6[12]::int, $6[13]::int)
    ON CONFLICT (bucket, hostname, worker_id) DO UPDATE SET
        port = EXCLUDED.port,
        %s,
        samples = m.samples + 1,
        -- the system sample is a reading, not a count: the latest wins
        cpu_user_pct = EXCLUDED.cpu_user_pct, cpu_system_pct = EXCLUDED.cpu_system_pct,
        rss_bytes = EXCLUDED.rss_bytes, heap_used = EXCLUDED.heap_used, heap_committed = EXCLUDED.heap_committed,
        heap_max = EXCLUDED.heap_max, nonheap_used = EXCLUDED.nonheap_used, db_pool_max = EXCLUDED.db_pool_max,
        db_pool_active = EXCLUDED.db_pool_active, db_pool_idle = EXCLUDED.db_pool_idle,
        db_pool_waiting = EXCLUDED.db_pool_waiting, threads = EXCLUDED.threads,
        daemon_threads = EXCLUDED.daemon_threads$q$,
        queen.metrics_minute_merge_v1('{db_errors}'))
    USING p_bucket, p_hostname, p_worker_id, p_port, p_broker, p_system;

    RETURN QUERY
    UPDATE queen.metrics_cluster_totals AS t SET
        push_requests = t.push_requests + p_broker[1],
        push_messages = t.push_messages + p_broker[2],
        pop_requests = t.pop_requests + p_broker[3],
        pop_messages = t.pop_messages + p_broker[4],
        ack_requests = t.ack_requests + p_broker[6],
        ack_messages = t.ack_messages + p_broker[7],
        ack_failed = t.ack_failed + p_broker[8],
        transactions = t.transactions + p_broker[9],
        dlq = t.dlq + p_broker[10],
        db_errors = t.db_errors + p_broker[13],
        updated_at = now()
     WHERE t.id = 1
    RETURNING t.push_requests, t.push_messages, t.pop_requests, t.pop_messages, t.ack_requests, t.ack_messages,
        t.ack_failed, t.transactions, t.dlq, t.db_errors;
END $$;

-- Retention step for the metric tables: deletes at most p_max_rows rows older than p_cutoff from each table
-- (an index range scan on the bucket-leading primary keys). done = nothing left to delete.
CREATE OR REPLACE FUNCTION queen.metrics_purge_step_v1(p_cutoff TIMESTAMPTZ, p_max_rows INT)
RETURNS TABLE (deleted INT, done BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    q INT;
    b INT;
BEGIN
    DELETE FROM queen.metrics_queue_minute m
     WHERE (m.bucket, m.hostname, m.worker_id, m.tenant_id, m.queue_name) IN (
        SELECT x.bucket, x.hostname, x.worker_id, x.tenant_id, x.queue_name FROM queen.metrics_queue_minute x
         WHERE x.bucket < p_cutoff ORDER BY x.bucket LIMIT p_max_rows);
    GET DIAGNOSTICS q = ROW_COUNT;
    DELETE FROM queen.metrics_broker_minute m
     WHERE (m.bucket, m.hostname, m.worker_id) IN (
        SELECT x.bucket, x.hostname, x.worker_id FROM queen.metrics_broker_minute x
         WHERE x.bucket < p_cutoff ORDER BY x.bucket LIMIT p_max_rows);
    GET DIAGNOSTICS b = ROW_COUNT;
    RETURN QUERY SELECT q + b, q < p_max_rows AND b < p_max_rows;
END $$;

-- The throughput series of GET /api/v1/status: one point per p_bucket_minutes bucket from p_from to p_to (empty
-- buckets as zeros), summed over the tenant's queues matching the filters and over every broker. The series starts
-- no earlier than the first minute any broker recorded in this database: before it nothing was counted, and a
-- zero there would read as "no traffic" (a curve rebuilt from these counts would invent its past). dead_lettered
-- is read from the dead letters themselves (log_dlq.failed_at, every group's row, the rows
-- GET /api/v1/status counts in deadLetterQueue.totalMessages), so the current minute is exact before any flush.
-- Cost: an index range scan of (brokers x active queues x minutes) rows of the window, and of the matching
-- partitions' dead letters filed in it (idx_log_dlq_partition_failed_at).
DROP FUNCTION IF EXISTS queen.metrics_throughput_v1(UUID, TIMESTAMPTZ, TIMESTAMPTZ, INT, TEXT, TEXT, TEXT);
CREATE FUNCTION queen.metrics_throughput_v1(p_tenant UUID, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
        p_bucket_minutes INT, p_queue TEXT, p_namespace TEXT, p_task TEXT)
RETURNS TABLE (bucket TIMESTAMPTZ, push_messages BIGINT, ack_messages BIGINT, pop_messages BIGINT,
        lag_count BIGINT, lag_sum_ms BIGINT, lag_max_ms BIGINT, dead_lettered BIGINT)
LANGUAGE sql STABLE AS $$
    WITH m AS (
        SELECT date_bin(make_interval(mins => p_bucket_minutes), x.bucket, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS b,
               sum(x.push_messages) AS push_messages, sum(x.ack_messages) AS ack_messages,
               sum(x.pop_messages) AS pop_messages, sum(x.lag_count) AS lag_count, sum(x.lag_sum_ms) AS lag_sum_ms,
               max(x.lag_max_ms) AS lag_max_ms
          FROM queen.metrics_queue_minute x
         WHERE x.tenant_id = p_tenant AND x.bucket >= date_trunc('minute', p_from) AND x.bucket <= p_to
           AND (p_queue IS NULL OR x.queue_name = p_queue)
           AND (p_namespace IS NULL AND p_task IS NULL OR EXISTS (
                SELECT 1 FROM queen.queues q WHERE q.tenant_id = x.tenant_id AND q.name = x.queue_name
                   AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task)))
         GROUP BY 1),
    d AS (
        SELECT date_bin(make_interval(mins => p_bucket_minutes), x.failed_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')
                   AS b, count(*) AS n
          FROM queen.queues q
          JOIN queen.log_partitions lp ON lp.queue_id = q.id
          JOIN queen.log_dlq x ON x.partition_id = lp.id
         WHERE q.tenant_id = p_tenant AND (p_queue IS NULL OR q.name = p_queue)
           AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task)
           AND x.failed_at >= date_trunc('minute', p_from) AND x.failed_at <= p_to
         GROUP BY 1),
    -- the first minute recorded (the primary key leads with the bucket: one index probe); none yet: this minute
    f AS (SELECT COALESCE((SELECT min(x.bucket) FROM queen.metrics_broker_minute x),
                          date_trunc('minute', now())) AS at)
    SELECT g, COALESCE(m.push_messages, 0)::bigint, COALESCE(m.ack_messages, 0)::bigint,
           COALESCE(m.pop_messages, 0)::bigint, COALESCE(m.lag_count, 0)::bigint, COALESCE(m.lag_sum_ms, 0)::bigint,
           COALESCE(m.lag_max_ms, 0)::bigint, COALESCE(d.n, 0)::bigint
      FROM f CROSS JOIN LATERAL generate_series(
                date_bin(make_interval(mins => p_bucket_minutes), GREATEST(date_trunc('minute', p_from), f.at),
                         TIMESTAMPTZ '2000-01-01 00:00:00+00'),
                p_to, make_interval(mins => p_bucket_minutes)) AS g
      LEFT JOIN m ON m.b = g
      LEFT JOIN d ON d.b = g
     ORDER BY g
$$;

-- The overview's rates: messages pushed and positively acked per second over the p_minutes complete minutes before
-- the current one, every queue of the tenant, every broker.
CREATE OR REPLACE FUNCTION queen.metrics_recent_rates_v1(p_tenant UUID, p_minutes INT)
RETURNS TABLE (ingested_per_second DOUBLE PRECISION, processed_per_second DOUBLE PRECISION)
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(sum(x.push_messages), 0)::double precision / (60 * p_minutes),
           COALESCE(sum(x.ack_messages), 0)::double precision / (60 * p_minutes)
      FROM queen.metrics_queue_minute x
     WHERE x.tenant_id = p_tenant
       AND x.bucket >= date_trunc('minute', now()) - make_interval(mins => p_minutes)
       AND x.bucket < date_trunc('minute', now())
$$;
