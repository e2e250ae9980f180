-- 014_admin_status.sql: the read side of the admin API (resources, status, consumer-group views). Every figure is
-- offset arithmetic on watermarks (log_partitions) and cursors (log_consumers), plus counts of log_dlq rows: no
-- function here reads a segment blob. The only log_segments access is a primary-key probe for the created_at of
-- the segment covering a lagging cursor's next offset (time lag). Every function is STABLE: nothing writes.
-- Every function sets jit = off: over thousands of partitions these plans cost more than jit_above_cost, and
-- compiling them cost more than running them (10,000 partitions on a busy 2-core host: 2-3.4 s with JIT,
-- 0.25-0.6 s without).
--
-- Per partition (s = log_start, L = last_offset; the live window is [s, L]):
--   total      = L - s + 1
--   view       = the queue-mode cursor when the partition has one, else every named group's cursor (the same rule
--                as the message browse's status derivation, so the figures and the browsed statuses agree)
--   floor      = the lowest view cursor, clamped to [s - 1, L] (s - 1 when there is no cursor: nothing consumed)
--   processing = offsets above floor inside a live leased span (committed, batch_end] of a view cursor (union)
--   deadLetter = log_dlq rows of the partition (every group; rows outlive the retention of their segment)
--   completed  = (floor - s + 1) minus the distinct dead-lettered offsets in [s, floor]
--   pending    = (L - floor) minus processing minus the distinct dead-lettered offsets in (floor, L]
--   failed     = view cursors in a failure episode (batch_retry_count > 0 with something left to consume): each is
--                one message awaiting its retry, also counted in pending
-- so total = completed + processing + pending + (dead-lettered offsets still in the window).

-- Figures of every partition of some queues. Set-based (joins and GROUP BY rather than a subquery per partition)
-- so the planner can read the cursors and dead letters of many partitions in one pass, or probe their primary key
-- and index per partition when few are asked for. Cost: O(partitions + their cursors + their dead letters).
CREATE OR REPLACE FUNCTION queen.status_partition_figures_v1(p_queue_ids UUID[])
RETURNS TABLE (queue_id UUID, partition_id UUID, partition_name TEXT, created_at TIMESTAMPTZ,
               last_write_at TIMESTAMPTZ, oldest_at TIMESTAMPTZ, log_start BIGINT, last_offset BIGINT,
               total BIGINT, pending BIGINT, processing BIGINT, completed BIGINT, failed BIGINT,
               dead_letter BIGINT, cursors BIGINT, leases BIGINT, leased_span BIGINT, total_consumed BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH p AS (SELECT lp.id, lp.queue_id, lp.name, lp.created_at, lp.last_write_at, lp.oldest_live_at,
                      lp.log_start, lp.last_offset
                 FROM queen.log_partitions lp WHERE lp.queue_id = ANY (p_queue_ids)),
         -- every cursor clamped to its partition's live window; live = the lease has not expired
         c AS (SELECT cc.partition_id, cc.consumer_group, cc.batch_retry_count, cc.total_consumed, p.last_offset,
                      LEAST(GREATEST(cc.committed, p.log_start - 1), p.last_offset) AS c,
                      (cc.batch_end IS NOT NULL AND cc.lease_expires_at > now()) AS live, cc.batch_end
                 FROM p JOIN queen.log_consumers cc ON cc.partition_id = p.id),
         cv AS (SELECT c.*, CASE WHEN c.live THEN LEAST(c.batch_end, c.last_offset) ELSE c.c END AS e,
                       (c.consumer_group = '__QUEUE_MODE__'
                        OR NOT bool_or(c.consumer_group = '__QUEUE_MODE__') OVER (PARTITION BY c.partition_id))
                           AS is_view
                  FROM c),
         -- union of the view cursors' live spans (c, e]: sorted by start, a span adds what lies above every
         -- earlier span's end
         cu AS (SELECT cv.*, GREATEST(cv.e - GREATEST(cv.c, COALESCE(max(cv.e) OVER (
                           PARTITION BY cv.partition_id, (cv.is_view AND cv.live) ORDER BY cv.c, cv.e
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), cv.c)), 0) AS contrib
                  FROM cv),
         ca AS (SELECT cu.partition_id,
                       min(cu.c) FILTER (WHERE cu.is_view) AS floor,
                       COALESCE(sum(cu.contrib) FILTER (WHERE cu.is_view AND cu.live), 0)::bigint AS processing,
                       count(*) FILTER (WHERE cu.is_view AND cu.batch_retry_count > 0 AND cu.c < cu.last_offset)
                           AS failed,
                       count(*) AS cursors,
                       count(*) FILTER (WHERE cu.live) AS leases,
                       COALESCE(sum(GREATEST(cu.e - cu.c, 0)) FILTER (WHERE cu.live), 0)::bigint AS leased_span,
                       sum(cu.total_consumed)::bigint AS consumed
                  FROM cu GROUP BY cu.partition_id),
         pf AS (SELECT p.*, COALESCE(ca.floor, p.log_start - 1) AS floor FROM p LEFT JOIN ca ON ca.partition_id = p.id),
         -- dead letters: rows per partition, and distinct dead-lettered offsets below / above the floor
         d AS (SELECT x.partition_id, x."offset", count(*) AS n
                 FROM p JOIN queen.log_dlq x ON x.partition_id = p.id GROUP BY x.partition_id, x."offset"),
         da AS (SELECT d.partition_id, sum(d.n)::bigint AS rows_,
                       count(*) FILTER (WHERE d."offset" BETWEEN pf.log_start AND pf.floor) AS below,
                       count(*) FILTER (WHERE d."offset" > pf.floor AND d."offset" <= pf.last_offset) AS above
                  FROM d JOIN pf ON pf.id = d.partition_id GROUP BY d.partition_id)
    SELECT pf.queue_id, pf.id, pf.name, pf.created_at, pf.last_write_at, pf.oldest_live_at, pf.log_start,
           pf.last_offset,
           GREATEST(pf.last_offset - pf.log_start + 1, 0),
           GREATEST(pf.last_offset - pf.floor - COALESCE(ca.processing, 0) - COALESCE(da.above, 0), 0),
           COALESCE(ca.processing, 0),
           GREATEST(pf.floor - (pf.log_start - 1) - COALESCE(da.below, 0), 0),
           COALESCE(ca.failed, 0), COALESCE(da.rows_, 0), COALESCE(ca.cursors, 0), COALESCE(ca.leases, 0),
           COALESCE(ca.leased_span, 0), COALESCE(ca.consumed, 0)
      FROM pf LEFT JOIN ca ON ca.partition_id = pf.id LEFT JOIN da ON da.partition_id = pf.id
$$;

-- The tenant's queues matching the filters (NULL = no filter; search = case-insensitive substring of the name).
CREATE OR REPLACE FUNCTION queen.status_queue_match_v1(p_tenant UUID, p_queue TEXT, p_namespace TEXT, p_task TEXT,
                                                      p_search TEXT)
RETURNS SETOF queen.queues
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT q.* FROM queen.queues q
     WHERE q.tenant_id = p_tenant
       AND (p_queue IS NULL OR q.name = p_queue)
       AND (p_namespace IS NULL OR q.namespace = p_namespace)
       AND (p_task IS NULL OR q.task = p_task)
       AND (p_search IS NULL OR strpos(lower(q.name), lower(p_search)) > 0)
$$;

-- One page of matching queues, newest first, with per-queue sums of the partition figures. Always one row at
-- least: `matching` (all queues matching the filters) is on every row; when the page is empty the single row
-- has a NULL queue_id. Cost: O(queues matching) for the count and the sort, O(partitions of the page) for figures.
CREATE OR REPLACE FUNCTION queen.status_queue_page_v1(p_tenant UUID, p_queue TEXT, p_namespace TEXT, p_task TEXT,
                                                     p_search TEXT, p_limit INT, p_offset INT)
RETURNS TABLE (matching BIGINT, queue_id UUID, name TEXT, namespace TEXT, task TEXT, priority INT,
               created_at TIMESTAMPTZ, partitions BIGINT, total BIGINT, pending BIGINT, processing BIGINT,
               completed BIGINT, failed BIGINT, dead_letter BIGINT, total_consumed BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH m AS (SELECT * FROM queen.status_queue_match_v1(p_tenant, p_queue, p_namespace, p_task, p_search)),
         page AS (SELECT m.id, m.name, m.namespace, m.task, m.priority, m.created_at FROM m
                   ORDER BY m.created_at DESC, m.name LIMIT p_limit OFFSET p_offset),
         f AS (SELECT x.queue_id, count(*) AS partitions, sum(x.total) AS total, sum(x.pending) AS pending,
                      sum(x.processing) AS processing, sum(x.completed) AS completed, sum(x.failed) AS failed,
                      sum(x.dead_letter) AS dead_letter, sum(x.total_consumed) AS total_consumed
                 FROM queen.status_partition_figures_v1(ARRAY(SELECT page.id FROM page)) x GROUP BY x.queue_id)
    SELECT c.n, page.id, page.name::text, COALESCE(page.namespace, '')::text, COALESCE(page.task, '')::text,
           page.priority, page.created_at,
           COALESCE(f.partitions, 0), COALESCE(f.total, 0)::bigint, COALESCE(f.pending, 0)::bigint,
           COALESCE(f.processing, 0)::bigint, COALESCE(f.completed, 0)::bigint, COALESCE(f.failed, 0)::bigint,
           COALESCE(f.dead_letter, 0)::bigint, COALESCE(f.total_consumed, 0)::bigint
      FROM (SELECT count(*) AS n FROM m) c
      LEFT JOIN page ON TRUE
      LEFT JOIN f ON f.queue_id = page.id
     ORDER BY page.created_at DESC, page.name
$$;

-- Sums over every partition of the matching queues, with live-lease and dead-letter summaries (the status and
-- overview routes). Cost: O(partitions + cursors + dead letters of the matching queues).
CREATE OR REPLACE FUNCTION queen.status_totals_v1(p_tenant UUID, p_queue TEXT, p_namespace TEXT, p_task TEXT)
RETURNS TABLE (queues BIGINT, partitions BIGINT, namespaces BIGINT, tasks BIGINT, total BIGINT, pending BIGINT,
               processing BIGINT, completed BIGINT, failed BIGINT, dead_letter BIGINT, leases BIGINT,
               partitions_with_leases BIGINT, leased_span BIGINT, total_consumed BIGINT,
               dlq_partitions BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH m AS (SELECT * FROM queen.status_queue_match_v1(p_tenant, p_queue, p_namespace, p_task, NULL)),
         f AS (SELECT * FROM queen.status_partition_figures_v1(ARRAY(SELECT m.id FROM m)))
    SELECT (SELECT count(*) FROM m),
           (SELECT count(*) FROM f),
           (SELECT count(DISTINCT m.namespace) FILTER (WHERE m.namespace <> '') FROM m),
           (SELECT count(DISTINCT m.task) FILTER (WHERE m.task <> '') FROM m),
           COALESCE(sum(f.total), 0)::bigint, COALESCE(sum(f.pending), 0)::bigint,
           COALESCE(sum(f.processing), 0)::bigint, COALESCE(sum(f.completed), 0)::bigint,
           COALESCE(sum(f.failed), 0)::bigint, COALESCE(sum(f.dead_letter), 0)::bigint,
           COALESCE(sum(f.leases), 0)::bigint, count(*) FILTER (WHERE f.leases > 0),
           COALESCE(sum(f.leased_span), 0)::bigint, COALESCE(sum(f.total_consumed), 0)::bigint,
           count(*) FILTER (WHERE f.dead_letter > 0)
      FROM f
$$;

-- The most frequent dead-letter errors of the matching queues. Cost: O(dead letters of those queues).
CREATE OR REPLACE FUNCTION queen.status_dlq_top_errors_v1(p_tenant UUID, p_queue TEXT, p_namespace TEXT,
                                                         p_task TEXT, p_limit INT)
RETURNS TABLE (error TEXT, n BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT COALESCE(d.error, 'Retries exhausted'), count(*)
      FROM queen.status_queue_match_v1(p_tenant, p_queue, p_namespace, p_task, NULL) m
      JOIN queen.log_partitions lp ON lp.queue_id = m.id
      JOIN queen.log_dlq d ON d.partition_id = lp.id
     GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT p_limit
$$;

-- Namespace or task rollup (p_by = 'namespace' | 'task'): queues, partitions, total and pending per non-empty
-- value. Cost: O(partitions + cursors + dead letters of the tenant).
CREATE OR REPLACE FUNCTION queen.status_rollup_v1(p_tenant UUID, p_by TEXT)
RETURNS TABLE (key TEXT, queues BIGINT, partitions BIGINT, total BIGINT, pending BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH m AS (SELECT q.id, CASE WHEN p_by = 'task' THEN q.task ELSE q.namespace END::text AS key
                 FROM queen.queues q WHERE q.tenant_id = p_tenant),
         f AS (SELECT x.queue_id, count(*) AS partitions, sum(x.total) AS total, sum(x.pending) AS pending
                 FROM queen.status_partition_figures_v1(ARRAY(SELECT m.id FROM m WHERE m.key <> '')) x
                GROUP BY x.queue_id)
    SELECT m.key, count(*), COALESCE(sum(f.partitions), 0)::bigint, COALESCE(sum(f.total), 0)::bigint,
           COALESCE(sum(f.pending), 0)::bigint
      FROM m LEFT JOIN f ON f.queue_id = m.id
     WHERE m.key <> ''
     GROUP BY m.key ORDER BY m.key
$$;

-- One queue of the tenant with its stored configuration (NULL row set = unknown).
CREATE OR REPLACE FUNCTION queen.status_queue_v1(p_tenant UUID, p_queue TEXT)
RETURNS SETOF queen.queues
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT q.* FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queue
$$;

-- Partition figures of one queue, with the created_at of its newest segment (one backward PK probe each).
-- Cost: O(partitions of the queue + their cursors + their dead letters).
CREATE OR REPLACE FUNCTION queen.status_queue_partitions_v1(p_queue_id UUID)
RETURNS TABLE (partition_id UUID, partition_name TEXT, created_at TIMESTAMPTZ, last_write_at TIMESTAMPTZ,
               oldest_at TIMESTAMPTZ, newest_at TIMESTAMPTZ, log_start BIGINT, last_offset BIGINT, total BIGINT,
               pending BIGINT, processing BIGINT, completed BIGINT, failed BIGINT, dead_letter BIGINT,
               cursors BIGINT, leases BIGINT, total_consumed BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT f.partition_id, f.partition_name, f.created_at, f.last_write_at, f.oldest_at,
           CASE WHEN f.total > 0 THEN (SELECT s.created_at FROM queen.log_segments s
                                        WHERE s.partition_id = f.partition_id
                                        ORDER BY s.base_offset DESC LIMIT 1) END,
           f.log_start, f.last_offset, f.total, f.pending, f.processing, f.completed, f.failed, f.dead_letter,
           f.cursors, f.leases, f.total_consumed
      FROM queen.status_partition_figures_v1(ARRAY[p_queue_id]) f
     ORDER BY f.partition_name
$$;

-- Where a group's first pop of a partition would start it, as the seed of queen.log_seed_offset_v1 (the offset
-- before the first segment created at or after p_from, else last_offset; never below log_start - 1), found by
-- bisecting the live offsets with backward primary-key probes (created_at is monotone in offset order, and the
-- live segments cover [log_start, last_offset] without holes): O(log(last_offset - log_start)) probes, never a
-- walk over the segments. The caller has already answered the cases without a probe (an empty partition, or a
-- start at or before the oldest live message).
CREATE OR REPLACE FUNCTION queen.log_seed_offset_bisect_v1(p_pid UUID, p_from TIMESTAMPTZ, p_log_start BIGINT,
                                                           p_last BIGINT)
RETURNS BIGINT
LANGUAGE plpgsql STABLE AS $$
DECLARE
    lo  BIGINT := p_log_start;   -- the answer (first offset at or after p_from) lies in [lo, hi]; hi = none
    hi  BIGINT := p_last + 1;
    mid BIGINT;
    b   BIGINT;
    e   BIGINT;
    t   TIMESTAMPTZ;
BEGIN
    WHILE lo < hi LOOP
        mid := lo + (hi - lo) / 2;
        SELECT s.base_offset, s.end_offset, s.created_at INTO b, e, t FROM queen.log_segments s
         WHERE s.partition_id = p_pid AND s.base_offset <= mid ORDER BY s.base_offset DESC LIMIT 1;
        IF NOT FOUND OR e < mid THEN
            -- a hole the model says cannot exist (retention running right now): the forward walk is exact
            RETURN GREATEST(queen.log_seed_offset_v1(p_pid, p_from), p_log_start - 1);
        END IF;
        IF t >= p_from THEN
            hi := b;
        ELSE
            lo := e + 1;
        END IF;
    END LOOP;
    RETURN GREATEST(lo - 1, p_log_start - 1);
END $$;

-- A consumer group's position in every partition of every queue it consumes (optionally one group), each with its
-- offset lag and time lag. A group consumes a queue once it has a cursor in one of its partitions or a recorded
-- subscription on it (consumer_groups_metadata); in a partition it has not touched yet it stands where its first
-- pop would start it (has_cursor false): its subscription start (queue mode and 'all': log_start - 1, so every
-- live message is unread; 'new' and a timestamp: before the first message created at or after the start), so
-- lag and pending follow the subscription on every partition, never only on the partitions popped so far.
--   offset_lag = L - max(committed, s - 1): what the group has not acknowledged among the live messages
--   oldest_unconsumed_at = created_at of the segment covering the next offset to consume (one backward PK probe,
--                          only for a position with offset_lag > 0); time_lag_seconds = now - that, 0 when caught up
-- Cost: O(partitions of the queues shown x their groups) rows, plus one log_segments PK probe per lagging row and,
-- for an untouched partition whose group started after its oldest live message, a bisection
-- (queen.log_seed_offset_bisect_v1). Offset arithmetic throughout: no segment is read.
DROP FUNCTION IF EXISTS queen.status_group_cursors_v1(UUID, TEXT);
CREATE FUNCTION queen.status_group_cursors_v1(p_tenant UUID, p_group TEXT)
RETURNS TABLE (consumer_group TEXT, queue_id UUID, queue_name TEXT, partition_id UUID, partition_name TEXT,
               worker_id TEXT, committed BIGINT, offset_lag BIGINT, lease_active BOOLEAN,
               lease_expires_at TIMESTAMPTZ, total_consumed BIGINT, oldest_unconsumed_at TIMESTAMPTZ,
               time_lag_seconds DOUBLE PRECISION, has_cursor BOOLEAN)
LANGUAGE sql STABLE SET jit = off AS $$
    WITH gq AS (
        -- every (group, queue) of the tenant: from its cursors and from its recorded subscriptions; the recorded
        -- start wins, a group without one (queue mode) reads everything live
        SELECT DISTINCT ON (y.consumer_group, y.queue_id) y.consumer_group, y.queue_id, y.sub_from
          FROM (SELECT m.consumer_group, m.queue_id, m.subscription_timestamp AS sub_from, 0 AS pref
                  FROM queen.consumer_groups_metadata m JOIN queen.queues q ON q.id = m.queue_id
                 WHERE m.tenant_id = p_tenant AND q.tenant_id = p_tenant AND m.partition_name = ''
                   AND m.namespace = '' AND m.task = '' AND (p_group IS NULL OR m.consumer_group = p_group)
                UNION ALL
                SELECT DISTINCT cc.consumer_group, lp.queue_id, NULL::timestamptz, 1
                  FROM queen.queues q
                  JOIN queen.log_partitions lp ON lp.queue_id = q.id
                  JOIN queen.log_consumers cc ON cc.partition_id = lp.id
                 WHERE q.tenant_id = p_tenant AND (p_group IS NULL OR cc.consumer_group = p_group)) y
         ORDER BY y.consumer_group, y.queue_id, y.pref),
    x AS (
        SELECT gq.consumer_group, q.id AS queue_id, q.name::text AS queue_name, lp.id AS partition_id,
               lp.name AS partition_name, lp.log_start, lp.last_offset, cc.partition_id IS NOT NULL AS has_cursor,
               CASE WHEN cc.batch_end IS NOT NULL AND cc.lease_expires_at > now() THEN cc.worker_id END AS worker_id,
               COALESCE(cc.committed,
                        CASE WHEN gq.sub_from IS NULL OR lp.oldest_live_at IS NULL
                                  OR lp.last_offset < lp.log_start OR gq.sub_from <= lp.oldest_live_at
                             THEN lp.log_start - 1
                             ELSE queen.log_seed_offset_bisect_v1(lp.id, gq.sub_from, lp.log_start, lp.last_offset)
                        END) AS committed,
               (cc.batch_end IS NOT NULL AND cc.lease_expires_at > now()) AS live,
               CASE WHEN cc.batch_end IS NOT NULL AND cc.lease_expires_at > now() THEN cc.lease_expires_at END
                   AS lease_expires_at,
               COALESCE(cc.total_consumed, 0) AS total_consumed
          FROM gq
          JOIN queen.queues q ON q.id = gq.queue_id
          JOIN queen.log_partitions lp ON lp.queue_id = q.id
          LEFT JOIN queen.log_consumers cc ON cc.partition_id = lp.id AND cc.consumer_group = gq.consumer_group),
    l AS (
        SELECT x.*, GREATEST(x.last_offset - GREATEST(x.committed, x.log_start - 1), 0) AS lag,
               GREATEST(x.committed + 1, x.log_start) AS next_off
          FROM x)
    SELECT l.consumer_group, l.queue_id, l.queue_name, l.partition_id, l.partition_name, l.worker_id, l.committed,
           l.lag, l.live, l.lease_expires_at, l.total_consumed, o.at,
           CASE WHEN o.at IS NULL THEN 0 ELSE GREATEST(extract(epoch FROM now() - o.at), 0) END::double precision,
           l.has_cursor
      FROM l
      LEFT JOIN LATERAL (SELECT s.created_at AS at FROM queen.log_segments s
                          WHERE l.lag > 0 AND s.partition_id = l.partition_id AND s.base_offset <= l.next_off
                          ORDER BY s.base_offset DESC LIMIT 1) o ON TRUE
$$;

-- One row per (group, queue): members (cursors), lag over every partition of the queue, and the recorded
-- subscription. Cost: as status_group_cursors_v1.
CREATE OR REPLACE FUNCTION queen.status_group_list_v1(p_tenant UUID)
RETURNS TABLE (consumer_group TEXT, queue_name TEXT, members BIGINT, partitions_with_lag BIGINT,
               total_lag BIGINT, max_time_lag DOUBLE PRECISION, leases BIGINT, subscription_mode TEXT,
               subscription_timestamp TIMESTAMPTZ, subscription_created_at TIMESTAMPTZ)
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT g.consumer_group, g.queue_name, g.members, g.lagging, g.total_lag, g.max_time_lag, g.leases,
           md.subscription_mode, md.subscription_timestamp, md.created_at
      FROM (SELECT c.consumer_group, c.queue_id, c.queue_name, count(*) FILTER (WHERE c.has_cursor) AS members,
                   count(*) FILTER (WHERE c.offset_lag > 0) AS lagging, sum(c.offset_lag)::bigint AS total_lag,
                   max(c.time_lag_seconds) AS max_time_lag, count(*) FILTER (WHERE c.lease_active) AS leases
              FROM queen.status_group_cursors_v1(p_tenant, NULL) c
             GROUP BY c.consumer_group, c.queue_id, c.queue_name) g
      LEFT JOIN LATERAL (SELECT m.subscription_mode, m.subscription_timestamp, m.created_at
                           FROM queen.consumer_groups_metadata m
                          WHERE m.tenant_id = p_tenant AND m.consumer_group = g.consumer_group
                            AND m.queue_id = g.queue_id
                          ORDER BY (m.partition_name = '') DESC, m.created_at LIMIT 1) md ON TRUE
     ORDER BY g.consumer_group, g.queue_name
$$;

-- Lag statistics over every (group, partition) position of the tenant (status_group_cursors_v1: untouched
-- partitions at the group's subscription start included) for the overview: avg / median / min / max of time and
-- offset lag; cursors counts the positions.
CREATE OR REPLACE FUNCTION queen.status_lag_stats_v1(p_tenant UUID)
RETURNS TABLE (cursors BIGINT, time_avg DOUBLE PRECISION, time_median DOUBLE PRECISION,
               time_min DOUBLE PRECISION, time_max DOUBLE PRECISION, offset_avg DOUBLE PRECISION,
               offset_median DOUBLE PRECISION, offset_min BIGINT, offset_max BIGINT)
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT count(*), avg(c.time_lag_seconds), percentile_cont(0.5) WITHIN GROUP (ORDER BY c.time_lag_seconds),
           min(c.time_lag_seconds), max(c.time_lag_seconds), avg(c.offset_lag)::double precision,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY c.offset_lag), min(c.offset_lag), max(c.offset_lag)
      FROM queen.status_group_cursors_v1(p_tenant, NULL) c
$$;

-- Cursors with something to consume whose time lag is at least p_min_lag seconds, largest time lag first, at most
-- p_limit. Cost: as status_group_cursors_v1 over every cursor of the tenant, plus a sort of the lagging ones.
CREATE OR REPLACE FUNCTION queen.status_lagging_v1(p_tenant UUID, p_min_lag DOUBLE PRECISION, p_limit INT)
RETURNS TABLE (consumer_group TEXT, queue_name TEXT, partition_id UUID, partition_name TEXT, worker_id TEXT,
               offset_lag BIGINT, time_lag_seconds DOUBLE PRECISION, oldest_unconsumed_at TIMESTAMPTZ)
LANGUAGE sql STABLE SET jit = off AS $$
    SELECT c.consumer_group, c.queue_name, c.partition_id, c.partition_name, c.worker_id, c.offset_lag,
           c.time_lag_seconds, c.oldest_unconsumed_at
      FROM queen.status_group_cursors_v1(p_tenant, NULL) c
     WHERE c.offset_lag > 0 AND c.time_lag_seconds >= p_min_lag
     ORDER BY c.time_lag_seconds DESC, c.offset_lag DESC, c.consumer_group, c.partition_id
     LIMIT p_limit
$$;
