-- 030_metrics_backlog.sql: what the queues hold and how far each consumer group trails, for the Prometheus backlog
-- and lag gauges (queen_queue_pending_messages, queen_queue_oldest_pending_age_seconds, queen_group_lag_messages,
-- queen_group_lag_seconds). One broker computes the figures per interval for the cluster and stores them; every
-- broker reads the stored figures, so a scrape of any broker shows the same backlog, and the figures keep coming
-- when consumers stop popping (they are offset arithmetic on watermarks and cursors, not counts of pops).
-- Applied at every boot, idempotently.
--
-- Figures (the same rules as 014_admin_status.sql):
--   queue row (consumer_group = ''): messages = pending (status_partition_figures_v1), oldest_at = created_at of
--     the oldest pending message: per partition, the next offset of the queue-mode cursor when the partition has
--     one, else of the furthest-behind group; a partition no group consumes: its oldest live message
--   group row: messages = sum over the queue's partitions of L - max(committed, s - 1) (untouched partitions at
--     the group's subscription start), oldest_at = the oldest created_at of a next offset to consume (NULL = caught up)
-- Volume: one row per queue plus one per (queue, group), replaced by each sample.

CREATE TABLE IF NOT EXISTS queen.metrics_backlog (
    tenant_id      UUID NOT NULL,
    queue_name     TEXT NOT NULL,
    consumer_group TEXT NOT NULL,                  -- '' = the queue's pending messages
    messages       BIGINT NOT NULL,
    oldest_at      TIMESTAMPTZ,                    -- NULL = nothing pending / caught up
    PRIMARY KEY (tenant_id, queue_name, consumer_group)
);

-- The single claim row: when the stored figures were computed.
CREATE TABLE IF NOT EXISTS queen.metrics_backlog_claim (
    id         INT PRIMARY KEY CHECK (id = 1),
    sampled_at TIMESTAMPTZ NOT NULL
);
INSERT INTO queen.metrics_backlog_claim (id, sampled_at) VALUES (1, '-infinity') ON CONFLICT (id) DO NOTHING;

-- Recomputes the stored figures unless another broker did within p_min_interval_ms (every broker calls this after
-- its flush; the claim is an UPDATE of one row, so two brokers racing for it serialize and the second finds it
-- fresh). Returns the rows written, or -1 when the figures were fresh. p_min_interval_ms = 0 always recomputes.
-- Cost for the claiming broker: O(partitions x their groups) rows (status_group_cursors_v1) plus one log_segments
-- primary-key probe per lagging position, once per interval for the cluster.
CREATE OR REPLACE FUNCTION queen.metrics_backlog_sample_v1(p_min_interval_ms BIGINT)
RETURNS INT
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    t UUID;
    n INT := 0;
    k INT;
BEGIN
    UPDATE queen.metrics_backlog_claim SET sampled_at = now()
     WHERE id = 1 AND (p_min_interval_ms <= 0
                       OR sampled_at <= now() - make_interval(secs => p_min_interval_ms / 1000.0));
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    DELETE FROM queen.metrics_backlog;
    FOR t IN SELECT DISTINCT q.tenant_id FROM queen.queues q LOOP
        INSERT INTO queen.metrics_backlog (tenant_id, queue_name, consumer_group, messages, oldest_at)
        WITH c AS MATERIALIZED (SELECT * FROM queen.status_group_cursors_v1(t, NULL)),
             -- per partition: the view's oldest next message (the queue-mode cursor's when it has one)
             pv AS (SELECT c.partition_id,
                           CASE WHEN bool_or(c.consumer_group = '__QUEUE_MODE__' AND c.has_cursor)
                                THEN min(c.oldest_unconsumed_at) FILTER (WHERE c.consumer_group = '__QUEUE_MODE__')
                                ELSE min(c.oldest_unconsumed_at) END AS at
                      FROM c GROUP BY c.partition_id),
             f AS (SELECT * FROM queen.status_partition_figures_v1(
                       ARRAY(SELECT q.id FROM queen.queues q WHERE q.tenant_id = t)))
        SELECT t, c.queue_name, c.consumer_group, sum(c.offset_lag)::bigint, min(c.oldest_unconsumed_at)
          FROM c GROUP BY c.queue_name, c.consumer_group
        UNION ALL
        SELECT t, q.name, '', sum(f.pending)::bigint,
               min(COALESCE(pv.at, f.oldest_at)) FILTER (WHERE f.pending > 0)
          FROM f JOIN queen.queues q ON q.id = f.queue_id LEFT JOIN pv ON pv.partition_id = f.partition_id
         GROUP BY q.name;
        GET DIAGNOSTICS k = ROW_COUNT;
        n := n + k;
    END LOOP;
    RETURN n;
END $$;

-- The stored figures as Prometheus labels them: queues of p_tenant (the default tenant) under their names, the
-- p_max_queues with the largest backlog; groups under their names, the p_max_groups with the largest lag over
-- p_tenant's queues; everything else (other tenants included) summed under '_other' (messages summed, oldest_at
-- the oldest). group_label '' = the queue row. age_seconds = now - oldest_at (NULL = nothing pending).
-- At most (p_max_queues + 1) x (p_max_groups + 2) rows. Cost: one pass over the stored rows and two sorts.
CREATE OR REPLACE FUNCTION queen.metrics_backlog_read_v1(p_tenant UUID, p_max_queues INT, p_max_groups INT)
RETURNS TABLE (queue_label TEXT, group_label TEXT, messages BIGINT, age_seconds DOUBLE PRECISION,
               sampled_age_seconds DOUBLE PRECISION)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH qr AS (SELECT b.queue_name, row_number() OVER (ORDER BY b.messages DESC, b.queue_name) AS r
                  FROM queen.metrics_backlog b WHERE b.tenant_id = p_tenant AND b.consumer_group = ''),
         gr AS (SELECT b.consumer_group, row_number() OVER (ORDER BY sum(b.messages) DESC, b.consumer_group) AS r
                  FROM queen.metrics_backlog b WHERE b.tenant_id = p_tenant AND b.consumer_group <> ''
                 GROUP BY b.consumer_group),
         l AS (SELECT CASE WHEN qr.r <= p_max_queues THEN b.queue_name ELSE '_other' END AS ql,
                      CASE WHEN b.consumer_group = '' THEN ''
                           WHEN gr.r <= p_max_groups THEN b.consumer_group ELSE '_other' END AS gl,
                      b.messages, b.oldest_at
                 FROM queen.metrics_backlog b
                 LEFT JOIN qr ON b.tenant_id = p_tenant AND qr.queue_name = b.queue_name
                 LEFT JOIN gr ON b.tenant_id = p_tenant AND gr.consumer_group = b.consumer_group)
    SELECT l.ql, l.gl, sum(l.messages)::bigint,
           -- NULL stays NULL (GREATEST would turn it into 0)
           CASE WHEN min(l.oldest_at) IS NOT NULL
                THEN GREATEST(extract(epoch FROM now() - min(l.oldest_at)), 0)::double precision END,
           (SELECT extract(epoch FROM now() - c.sampled_at)::double precision
              FROM queen.metrics_backlog_claim c WHERE c.id = 1 AND c.sampled_at > '-infinity')
      FROM l GROUP BY l.ql, l.gl
$$;
