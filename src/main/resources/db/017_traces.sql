-- 017_traces.sql: message traces (API spec 4.6). Traces are not part of the log: their own table, keyed by the
-- message's address (partition_id, transaction_id), with NO foreign key (like the sidecar and the DLQ): whatever
-- deletes a partition deletes its traces itself (delete_queue_v1, partition cleanup), and the retention loop's
-- orphan sweep removes any left behind. The names a trace carries get a row each in message_trace_names, which
-- is what by-name listing and the names summary scan.
CREATE TABLE IF NOT EXISTS queen.message_traces (
    id             UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id      UUID NOT NULL,
    partition_id   UUID NOT NULL,
    transaction_id TEXT NOT NULL,
    consumer_group TEXT NOT NULL,
    event_type     TEXT NOT NULL,
    data           JSONB NOT NULL,
    worker_id      TEXT,
    trace_names    TEXT[] NOT NULL DEFAULT '{}',
    created_at     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
-- the traces of one message, oldest first
CREATE INDEX IF NOT EXISTS idx_message_traces_message ON queen.message_traces (partition_id, transaction_id, created_at);
-- retention purge: a partition's traces older than a cutoff
CREATE INDEX IF NOT EXISTS idx_message_traces_partition_created ON queen.message_traces (partition_id, created_at);

CREATE TABLE IF NOT EXISTS queen.message_trace_names (
    tenant_id      UUID NOT NULL,
    trace_name     TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    trace_id       UUID NOT NULL,
    partition_id   UUID NOT NULL,
    transaction_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, trace_name, created_at, trace_id)
);
CREATE INDEX IF NOT EXISTS idx_message_trace_names_partition ON queen.message_trace_names (partition_id, created_at);
CREATE INDEX IF NOT EXISTS idx_message_trace_names_trace ON queen.message_trace_names (trace_id);

-- Records one trace (the caller checked the message exists in the tenant); names de-duplicated, blanks dropped.
CREATE OR REPLACE FUNCTION queen.trace_add_v1(p_tenant UUID, p_pid UUID, p_txn TEXT, p_group TEXT, p_event TEXT,
                                              p_data JSONB, p_worker TEXT, p_names TEXT[])
RETURNS UUID
LANGUAGE plpgsql AS $$
DECLARE
    v_id UUID;
    v_at TIMESTAMPTZ;
    v_names TEXT[];
BEGIN
    SELECT COALESCE(array_agg(DISTINCT n ORDER BY n), '{}') INTO v_names
      FROM unnest(COALESCE(p_names, '{}')) AS n WHERE btrim(n) <> '';
    INSERT INTO queen.message_traces (tenant_id, partition_id, transaction_id, consumer_group, event_type, data,
                                      worker_id, trace_names)
    VALUES (p_tenant, p_pid, p_txn, p_group, p_event, p_data, p_worker, v_names)
    RETURNING id, created_at INTO v_id, v_at;
    INSERT INTO queen.message_trace_names (tenant_id, trace_name, created_at, trace_id, partition_id, transaction_id)
    SELECT p_tenant, n, v_at, v_id, p_pid, p_txn FROM unnest(v_names) AS n;
    RETURN v_id;
END $$;

-- The traces of one message, oldest first.
CREATE OR REPLACE FUNCTION queen.traces_of_message_v1(p_tenant UUID, p_pid UUID, p_txn TEXT)
RETURNS TABLE (id UUID, event_type TEXT, data JSONB, consumer_group TEXT, worker_id TEXT, created_at TIMESTAMPTZ,
               trace_names TEXT[])
LANGUAGE sql STABLE AS $$
    SELECT t.id, t.event_type, t.data, t.consumer_group, t.worker_id, t.created_at, t.trace_names
      FROM queen.message_traces t
     WHERE t.partition_id = p_pid AND t.transaction_id = p_txn AND t.tenant_id = p_tenant
     ORDER BY t.created_at, t.id
$$;

-- Traces carrying one name, newest first, one page.
DROP FUNCTION IF EXISTS queen.traces_by_name_v1(UUID, TEXT, INT, INT);
CREATE FUNCTION queen.traces_by_name_v1(p_tenant UUID, p_name TEXT, p_limit INT, p_offset INT)
RETURNS TABLE (id UUID, transaction_id TEXT, partition_id UUID, event_type TEXT, data JSONB, consumer_group TEXT,
               worker_id TEXT, created_at TIMESTAMPTZ, trace_names TEXT[], queue_name TEXT, partition_name TEXT)
LANGUAGE sql STABLE AS $$
    SELECT t.id, t.transaction_id, t.partition_id, t.event_type, t.data, t.consumer_group, t.worker_id,
           t.created_at, t.trace_names, q.name::text, lp.name
      FROM (SELECT n.trace_id FROM queen.message_trace_names n
             WHERE n.tenant_id = p_tenant AND n.trace_name = p_name
             ORDER BY n.created_at DESC, n.trace_id DESC LIMIT p_limit OFFSET p_offset) page
      JOIN queen.message_traces t ON t.id = page.trace_id
      LEFT JOIN queen.log_partitions lp ON lp.id = t.partition_id
      LEFT JOIN queen.queues q ON q.id = lp.queue_id
     ORDER BY t.created_at DESC, t.id DESC
$$;

-- How many traces carry one name (an index range count).
CREATE OR REPLACE FUNCTION queen.trace_name_count_v1(p_tenant UUID, p_name TEXT)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT count(*) FROM queen.message_trace_names n WHERE n.tenant_id = p_tenant AND n.trace_name = p_name
$$;

-- Every trace name of the tenant with its counts, most recently seen first, one page.
DROP FUNCTION IF EXISTS queen.trace_names_v1(UUID, INT, INT);
CREATE FUNCTION queen.trace_names_v1(p_tenant UUID, p_limit INT, p_offset INT)
RETURNS TABLE (trace_name TEXT, trace_count BIGINT, message_count BIGINT, last_seen TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT n.trace_name, count(*), count(DISTINCT (n.partition_id, n.transaction_id)), max(n.created_at)
      FROM queen.message_trace_names n WHERE n.tenant_id = p_tenant
     GROUP BY n.trace_name
     ORDER BY max(n.created_at) DESC, n.trace_name
     LIMIT p_limit OFFSET p_offset
$$;

-- How many distinct trace names the tenant has.
CREATE OR REPLACE FUNCTION queen.trace_names_count_v1(p_tenant UUID)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT count(DISTINCT n.trace_name) FROM queen.message_trace_names n WHERE n.tenant_id = p_tenant
$$;

-- Retention of traces: a trace lives as long as the messages it describes can, i.e. it is deleted once older than
-- GREATEST(retentionSeconds, completedRetentionSeconds) of its queue when retentionEnabled (traces of queues
-- without retention stay until their partition or queue is deleted). At most p_max_rows per call; cost: one index
-- probe per partition of a queue with retention (run on the partition-cleanup cadence, not every cycle).
CREATE OR REPLACE FUNCTION queen.trace_purge_v1(p_now TIMESTAMPTZ, p_max_rows INT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_ids UUID[];
BEGIN
    SELECT array_agg(v.id) INTO v_ids
      FROM (SELECT t.id
              FROM queen.queues q
              JOIN queen.log_partitions lp ON lp.queue_id = q.id
              CROSS JOIN LATERAL (
                  SELECT t.id FROM queen.message_traces t
                   WHERE t.partition_id = lp.id
                     AND t.created_at < p_now - make_interval(secs => GREATEST(q.retention_seconds,
                                                                              q.completed_retention_seconds))
                   ORDER BY t.created_at LIMIT p_max_rows) t
             WHERE q.retention_enabled AND GREATEST(q.retention_seconds, q.completed_retention_seconds) > 0
             LIMIT p_max_rows) v;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;
    DELETE FROM queen.message_trace_names n WHERE n.trace_id = ANY (v_ids);
    DELETE FROM queen.message_traces t WHERE t.id = ANY (v_ids);
    RETURN cardinality(v_ids);
END $$;
