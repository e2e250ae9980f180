-- 007_log_ack.sql: acknowledgements, retries and dead letters. The only lock any ack takes is its
-- (partition, group) cursor row in queen.log_consumers, never the partition row: acks never touch the push
-- serializer.

-- The ack decision procedure for one (partition, group): transaction hashes -> offsets through the sidecar,
-- then the cursor moves. Cursor model: acking offset N completes everything before it for the group; an
-- explicit failure signal in the same call is never skipped by a later success.
--   p_worker: the lease id ('' = lease-less ack: allowed, advances without a lease)
--   statuses: completed/success/acked/ok (positive), failed, retry, dlq
-- Returns one row per input (outcome, resolved offset) plus, on every row, what happened to the lease and,
-- when a dead letter must be filed, the poison offset (the caller files it with log_dlq_head_v1 in the SAME
-- transaction, keeping the lease until then).
DROP FUNCTION IF EXISTS queen.log_ack_by_hash_v1(UUID, TEXT, TEXT, BYTEA[], TEXT[]);
CREATE FUNCTION queen.log_ack_by_hash_v1(p_pid UUID, p_group TEXT, p_worker TEXT, p_hashes BYTEA[],
                                         p_statuses TEXT[])
RETURNS TABLE (ord INT, outcome TEXT, off BIGINT, lease_released BOOLEAN, dlq_off BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c RECORD;
    v_now TIMESTAMPTZ := clock_timestamp();
    v_tstart BIGINT;
    v_last BIGINT;
    v_lo BIGINT;
    v_hi BIGINT;
    v_live BOOLEAN;
    v_sig BIGINT;
    v_sig_status TEXT;
    v_new BIGINT;
    v_released BOOLEAN := FALSE;
    v_dlq BIGINT := NULL;
    v_retry_limit INT;
    v_dlq_on BOOLEAN;
    v_scan BIGINT;
    -- per input, by ordinal: lower-cased status, resolved offset ("eff"), found below the cursor ("below").
    -- Plain arrays, not a temp table: an ON COMMIT DELETE ROWS temp table costs a heap insert per input, an
    -- UPDATE per resolved input and a relation truncation (file I/O) at every commit.
    v_o INT[];
    v_st TEXT[];
    v_eff BIGINT[];
    v_below BOOLEAN[];
BEGIN
    IF cardinality(p_hashes) <> cardinality(p_statuses) THEN
        RAISE EXCEPTION 'QACK misaligned arrays';
    END IF;
    SELECT cc.committed, cc.batch_end, cc.worker_id, cc.lease_expires_at, cc.batch_retry_count INTO c
      FROM queen.log_consumers cc WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT i::int, 'no_cursor'::text, NULL::bigint, FALSE, NULL::bigint
                       FROM generate_series(1, cardinality(p_hashes)) i;
        RETURN;
    END IF;
    v_live := c.batch_end IS NOT NULL AND c.lease_expires_at IS NOT NULL AND c.lease_expires_at > v_now;
    IF p_worker <> '' AND (c.worker_id IS DISTINCT FROM p_worker OR NOT v_live) THEN
        -- The lease named is over, but a positive ack of a message the cursor already passed asks for nothing
        -- that is not true: answer it as the idempotent success it is ('noop'). This is also how an ack learns
        -- that its own commit happened when the answer to that commit was lost (a fused commit whose connection
        -- died after COMMIT falls back to this procedure and finds the lease it ended gone). Everything else is
        -- refused: a lease that expired before its messages were committed must not commit them.
        RETURN QUERY
        SELECT i.o::int,
               CASE WHEN b.o IS NOT NULL THEN 'noop' ELSE 'invalid_lease' END::text,
               NULL::bigint, FALSE, NULL::bigint
          FROM unnest(p_statuses) WITH ORDINALITY AS i(st, o)
          LEFT JOIN (SELECT DISTINCT x.o
                       FROM unnest(p_hashes, p_statuses) WITH ORDINALITY AS x(h, st, o)
                       JOIN (queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) u) ON u.h = x.h
                      WHERE lower(x.st) IN ('completed', 'success', 'acked', 'ok')
                        AND t.partition_id = p_pid AND t.base_offset <= c.committed
                        AND t.base_offset + u.idx <= c.committed) b ON b.o = i.o
         ORDER BY i.o;
        RETURN;
    END IF;
    SELECT lp.txns_start, lp.last_offset INTO v_tstart, v_last FROM queen.log_partitions lp WHERE lp.id = p_pid;
    v_lo := GREATEST(c.committed + 1, v_tstart);
    -- under a lease only the leased span counts; lease-less acks may reach up to the end of the log
    v_hi := CASE WHEN p_worker <> '' THEN c.batch_end ELSE v_last END;

    -- resolve: per input the lowest matching offset in [lo, hi] ("eff"), or whether it is below the cursor
    SELECT t.base_offset INTO v_scan FROM queen.log_txns t
     WHERE t.partition_id = p_pid AND t.base_offset <= v_lo ORDER BY t.base_offset DESC LIMIT 1;
    SELECT array_agg(i.o::int ORDER BY i.o), array_agg(lower(i.st) ORDER BY i.o), array_agg(m.eff ORDER BY i.o)
      INTO v_o, v_st, v_eff
      FROM unnest(p_hashes, p_statuses) WITH ORDINALITY AS i(h, st, o)
      LEFT JOIN (SELECT x.o, min(t.base_offset + u.idx) AS eff
                   FROM unnest(p_hashes) WITH ORDINALITY AS x(h, o)
                   JOIN (queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) u) ON u.h = x.h
                  WHERE t.partition_id = p_pid AND t.base_offset >= COALESCE(v_scan, v_lo) AND t.base_offset <= v_hi
                    AND t.base_offset + u.idx BETWEEN v_lo AND v_hi
                  GROUP BY x.o) m ON m.o = i.o;
    -- only inputs not found above the cursor pay for the look below it (stale/duplicate acks are rare)
    IF EXISTS (SELECT 1 FROM unnest(v_eff) AS a(eff) WHERE a.eff IS NULL) THEN
        SELECT array_agg(b.o IS NOT NULL ORDER BY a.o) INTO v_below
          FROM unnest(v_o) AS a(o)
          LEFT JOIN (SELECT DISTINCT x.o FROM unnest(p_hashes, v_eff) WITH ORDINALITY AS x(h, eff, o)
                       JOIN (queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) u) ON u.h = x.h
                      WHERE x.eff IS NULL AND t.partition_id = p_pid AND t.base_offset <= c.committed
                        AND t.base_offset + u.idx <= c.committed) b ON b.o = a.o;
    END IF;

    -- the lowest explicit signal; at one offset dlq beats failed beats retry
    SELECT a.eff, a.st INTO v_sig, v_sig_status FROM unnest(v_eff, v_st) AS a(eff, st)
     WHERE a.eff IS NOT NULL AND a.st IN ('failed', 'dlq', 'retry')
     ORDER BY a.eff, CASE a.st WHEN 'dlq' THEN 0 WHEN 'failed' THEN 1 ELSE 2 END LIMIT 1;
    -- new cursor: the highest positive below the signal (implicit ack of the silent gaps below it)
    SELECT max(a.eff) INTO v_new FROM unnest(v_eff, v_st) AS a(eff, st)
     WHERE a.eff IS NOT NULL AND a.st IN ('completed', 'success', 'acked', 'ok')
       AND (v_sig IS NULL OR a.eff < v_sig);
    v_new := GREATEST(c.committed, COALESCE(v_new, c.committed));

    IF v_sig IS NULL THEN
        IF c.batch_end IS NOT NULL AND v_new >= c.batch_end THEN
            UPDATE queen.log_consumers cc
               SET committed = v_new, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
                   batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL,
                   total_consumed = cc.total_consumed + (v_new - c.committed)
             WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
            v_released := TRUE;
        ELSIF v_new > c.committed THEN
            UPDATE queen.log_consumers cc
               SET committed = v_new, total_consumed = cc.total_consumed + (v_new - c.committed),
                   attempt_offset = CASE WHEN cc.batch_end IS NOT NULL THEN v_new + 1 ELSE cc.attempt_offset END
             WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
        END IF;
    ELSE
        SELECT COALESCE(q.retry_limit, 3), COALESCE(q.dead_letter_queue, TRUE) OR COALESCE(q.dlq_after_max_retries, TRUE)
          INTO v_retry_limit, v_dlq_on
          FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id WHERE lp.id = p_pid;
        IF v_sig_status = 'retry' OR (v_sig_status IN ('dlq', 'failed') AND v_new < v_sig - 1
                                         AND (v_sig_status = 'dlq' OR c.batch_retry_count >= v_retry_limit)) THEN
            -- 'retry', or a message to be dead-lettered while messages before it in the partition were neither
            -- acked nor failed: filing it would move the cursor over them (implicit ack of unprocessed work),
            -- so release for redelivery from the first unacked message instead, without charging the budget
            UPDATE queen.log_consumers cc
               SET committed = v_new, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
                   total_consumed = cc.total_consumed + (v_new - c.committed)
             WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
            v_released := TRUE;
        ELSIF v_sig_status = 'failed' AND c.batch_retry_count < v_retry_limit THEN
            -- one retry spent per failure episode; the span from the signal on is redelivered
            UPDATE queen.log_consumers cc
               SET committed = v_new, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
                   batch_retry_count = cc.batch_retry_count + 1,
                   total_consumed = cc.total_consumed + (v_new - c.committed)
             WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
            v_released := TRUE;
        ELSIF v_dlq_on THEN
            -- budget exhausted (or dlq asked): the caller files exactly the poison offset with log_dlq_head_v1 in
            -- this transaction, which moves the cursor past it (v_new >= v_sig - 1 here, so that move also commits
            -- the prefix). The cursor row is NOT updated here: a second UPDATE of a row this transaction already
            -- updated re-runs the FK check, which key-share-locks the partition row after the cursor row, against
            -- the global lock order (it deadlocked with queue delete)
            v_dlq := v_sig;
        ELSE
            -- dead-lettering disabled: drop the poison frame, the cursor still moves past it
            UPDATE queen.log_consumers cc
               SET committed = v_sig, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
                   batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL,
                   total_consumed = cc.total_consumed + (v_sig - c.committed)
             WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
            v_released := TRUE;
        END IF;
    END IF;

    RETURN QUERY
    SELECT a.o,
           CASE
             WHEN a.st NOT IN ('completed', 'success', 'acked', 'ok', 'failed', 'dlq', 'retry') THEN 'bad_status'
             WHEN a.eff IS NULL AND a.below AND a.st IN ('completed', 'success', 'acked', 'ok') THEN 'noop'
             WHEN a.eff IS NULL AND a.below THEN 'stale'
             WHEN a.eff IS NULL THEN 'unresolved'
             WHEN a.st IN ('completed', 'success', 'acked', 'ok') AND a.eff <= v_new THEN 'acked'
             WHEN a.st IN ('completed', 'success', 'acked', 'ok') THEN 'not_committed'
             WHEN a.eff = v_sig AND v_dlq IS NOT NULL THEN 'dlq'
             WHEN a.eff = v_sig AND v_sig_status = 'failed' AND v_released AND NOT v_dlq_on
                  AND c.batch_retry_count >= v_retry_limit THEN 'dropped'
             WHEN a.eff = v_sig THEN 'nacked'
             ELSE 'superseded'
           END,
           a.eff, v_released, v_dlq
      FROM unnest(v_o, v_st, v_eff, v_below) AS a(o, st, eff, below) ORDER BY a.o;
END $$;

-- Positional acks, many per transaction (ack fusion). Input i commits its leased batch up to p_ends[i] when the
-- (partition, group) lease is still p_workers[i]'s and live; reaching batch_end releases the lease and resets the
-- retry/attempt counters exactly like a full positive ack through log_ack_by_hash_v1. The broker sends an input
-- here only when it delivered that batch itself and the ack names every delivered message positive (its ack
-- registry checked count and hash digest): no sidecar lookup, one UPDATE by primary key per input. Cursor rows are
-- locked in (partition_id, group) order, the global lock order, so fused flushes never deadlock each other or the
-- by-hash path. Per input: ok = committed; not ok = nothing changed (the caller falls back to the decision procedure).
-- idle: the lease ended and the partition held nothing past it when the ack ran, so the ack freed no claimable
-- work (the broker then need not wake parked pops for it; a push racing the ack announces itself).
DROP FUNCTION IF EXISTS queen.log_ack_multi_v1(UUID[], TEXT[], BIGINT[], TEXT[]);
CREATE FUNCTION queen.log_ack_multi_v1(p_pids UUID[], p_groups TEXT[], p_ends BIGINT[], p_workers TEXT[])
RETURNS TABLE (ord INT, ok BOOLEAN, lease_released BOOLEAN, idle BOOLEAN)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ := clock_timestamp();
    r RECORD;
    v_released BOOLEAN;
    v_ok BOOLEAN[] := array_fill(FALSE, ARRAY[cardinality(p_pids)]);
    v_rel BOOLEAN[] := array_fill(FALSE, ARRAY[cardinality(p_pids)]);
    v_idle BOOLEAN[] := array_fill(FALSE, ARRAY[cardinality(p_pids)]);
BEGIN
    IF cardinality(p_pids) <> cardinality(p_groups) OR cardinality(p_pids) <> cardinality(p_ends)
       OR cardinality(p_pids) <> cardinality(p_workers) THEN
        RAISE EXCEPTION 'QACKM misaligned arrays';
    END IF;
    -- One primary-key probe and one UPDATE per input, in (partition_id, group) order: lock order, and an index
    -- probe whatever the statistics say (a join of unnest() against log_consumers can turn into a scan of the
    -- table when its statistics are stale).
    FOR r IN SELECT x.pid, x.grp, x.upto, x.worker, x.o::int AS o
               FROM unnest(p_pids, p_groups, p_ends, p_workers) WITH ORDINALITY AS x(pid, grp, upto, worker, o)
              ORDER BY x.pid, x.grp, x.o LOOP
        UPDATE queen.log_consumers cc
           SET committed = r.upto,
               batch_end = CASE WHEN r.upto >= cc.batch_end THEN NULL ELSE cc.batch_end END,
               worker_id = CASE WHEN r.upto >= cc.batch_end THEN NULL ELSE cc.worker_id END,
               lease_expires_at = CASE WHEN r.upto >= cc.batch_end THEN NULL ELSE cc.lease_expires_at END,
               batch_retry_count = CASE WHEN r.upto >= cc.batch_end THEN 0 ELSE cc.batch_retry_count END,
               attempt_count = CASE WHEN r.upto >= cc.batch_end THEN 0 ELSE cc.attempt_count END,
               attempt_offset = CASE WHEN r.upto >= cc.batch_end THEN NULL ELSE r.upto + 1 END,
               total_consumed = cc.total_consumed + (r.upto - cc.committed)
         WHERE cc.partition_id = r.pid AND cc.consumer_group = r.grp AND cc.worker_id = r.worker
           AND cc.batch_end IS NOT NULL AND cc.lease_expires_at > v_now
           AND r.upto > cc.committed AND r.upto <= cc.batch_end
        RETURNING cc.batch_end IS NULL INTO v_released;
        v_ok[r.o] := FOUND;
        v_rel[r.o] := FOUND AND v_released;
        IF v_rel[r.o] THEN
            v_idle[r.o] := COALESCE((SELECT lp.last_offset <= r.upto FROM queen.log_partitions lp
                                      WHERE lp.id = r.pid), TRUE);
        END IF;
    END LOOP;
    RETURN QUERY SELECT x.o::int, x.ok, x.rel, x.idle FROM unnest(v_ok, v_rel, v_idle) WITH ORDINALITY AS x(ok, rel, idle, o)
                  ORDER BY x.o;
END $$;

-- Files one dead letter and moves the cursor past exactly that offset, in one transaction: the snapshot
-- (payload copy, no FK: it survives retention of its segment), committed = GREATEST(committed, off) (a guard:
-- a stale caller can never walk the cursor backwards), lease released, retry and attempt counters reset.
DROP FUNCTION IF EXISTS queen.log_dlq_head_v1(UUID, TEXT, BIGINT, UUID, TEXT, JSONB, TEXT, UUID, TEXT, TIMESTAMPTZ);
DROP FUNCTION IF EXISTS queen.log_dlq_head_v1(UUID, TEXT, BIGINT, UUID, TEXT, JSONB, TEXT, UUID, TEXT, TIMESTAMPTZ,
                                              BYTEA);
CREATE FUNCTION queen.log_dlq_head_v1(p_pid UUID, p_group TEXT, p_off BIGINT, p_message_id UUID, p_txn TEXT,
                                      p_payload JSONB, p_error TEXT, p_trace UUID, p_producer_sub TEXT,
                                      p_created_at TIMESTAMPTZ, p_key BYTEA)
RETURNS UUID
LANGUAGE plpgsql AS $$
DECLARE
    v_id UUID;
    v_committed BIGINT;
    v_retries INT;
BEGIN
    SELECT cc.committed, cc.batch_retry_count INTO v_committed, v_retries FROM queen.log_consumers cc
     WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group FOR UPDATE;
    INSERT INTO queen.log_dlq (partition_id, consumer_group, "offset", message_id, transaction_id, payload, error,
                               retry_count, trace_id, producer_sub, message_created_at, message_key)
    VALUES (p_pid, p_group, p_off, p_message_id, p_txn, p_payload, COALESCE(p_error, 'Retries exhausted'),
            COALESCE(v_retries, 0), p_trace, p_producer_sub, p_created_at, p_key)
    RETURNING id INTO v_id;
    UPDATE queen.log_consumers cc
       SET committed = GREATEST(cc.committed, p_off), batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
           batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL,
           total_consumed = cc.total_consumed + GREATEST(p_off - cc.committed, 0)
     WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
    RETURN v_id;
END $$;

-- Extends every live lease held under one lease id (a multi-partition pop shares one) to
-- GREATEST(current, now + seconds): never shortens, never revives an expired lease. p_pids narrows the
-- search when the broker knows where the lease lives (log_consumers has no index on worker_id on purpose:
-- it would make every lease UPDATE non-HOT). Only cursors of p_tenant's partitions count: another tenant's
-- lease id answers like an unknown one.
DROP FUNCTION IF EXISTS queen.log_renew_lease_v1(TEXT, INT, UUID[]);
DROP FUNCTION IF EXISTS queen.log_renew_lease_v1(UUID, TEXT, INT, UUID[]);
CREATE FUNCTION queen.log_renew_lease_v1(p_tenant UUID, p_worker TEXT, p_seconds INT, p_pids UUID[])
RETURNS TABLE (renewed INT, expired INT, new_expiry TIMESTAMPTZ)
LANGUAGE plpgsql AS $$
DECLARE
    v_now TIMESTAMPTZ := clock_timestamp();
BEGIN
    -- a multi-partition lease spans several cursor rows: lock them in (partition_id, group) order first, the
    -- global lock order (an UPDATE alone locks them in whatever order its plan visits them)
    PERFORM 1 FROM queen.log_consumers cc
     WHERE cc.worker_id = p_worker AND cc.batch_end IS NOT NULL AND cc.lease_expires_at > v_now
       AND (p_pids IS NULL OR cc.partition_id = ANY (p_pids))
     ORDER BY cc.partition_id, cc.consumer_group FOR UPDATE;
    RETURN QUERY
    WITH upd AS (
        UPDATE queen.log_consumers cc
           SET lease_expires_at = GREATEST(cc.lease_expires_at, v_now + make_interval(secs => p_seconds))
         WHERE cc.worker_id = p_worker AND cc.batch_end IS NOT NULL AND cc.lease_expires_at > v_now
           AND (p_pids IS NULL OR cc.partition_id = ANY (p_pids))
           AND EXISTS (SELECT 1 FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
                        WHERE lp.id = cc.partition_id AND q.tenant_id = p_tenant)
        RETURNING cc.lease_expires_at)
    SELECT (SELECT count(*)::int FROM upd),
           (SELECT count(*)::int FROM queen.log_consumers cc
             WHERE cc.worker_id = p_worker AND (p_pids IS NULL OR cc.partition_id = ANY (p_pids))
               AND (cc.batch_end IS NULL OR cc.lease_expires_at <= v_now)
               AND EXISTS (SELECT 1 FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
                            WHERE lp.id = cc.partition_id AND q.tenant_id = p_tenant)),
           (SELECT min(lease_expires_at) FROM upd);
END $$;

-- The consumer group each (partition, lease id) pair names while the lease is held: an ack that names no consumer
-- group is for the group its lease belongs to. A probe by primary-key prefix per pair (one cursor row per group of
-- the partition); only the tenant's partitions count, another tenant's lease answers like an unknown one.
CREATE OR REPLACE FUNCTION queen.log_lease_groups_v1(p_tenant UUID, p_pids UUID[], p_leases TEXT[])
RETURNS TABLE (partition_id UUID, lease_id TEXT, consumer_group TEXT)
LANGUAGE sql STABLE AS $$
    SELECT cc.partition_id, cc.worker_id, cc.consumer_group
      FROM unnest(p_pids, p_leases) AS x(pid, lease)
      JOIN queen.log_consumers cc ON cc.partition_id = x.pid AND cc.worker_id = x.lease AND cc.batch_end IS NOT NULL
      JOIN queen.log_partitions lp ON lp.id = cc.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id AND q.tenant_id = p_tenant
$$;

-- Partition identity for ack results and DLQ filing.
CREATE OR REPLACE FUNCTION queen.log_partition_info_v1(p_pids UUID[])
RETURNS TABLE (partition_id UUID, partition_name TEXT, queue_name TEXT, tenant_id UUID)
LANGUAGE sql STABLE AS $$
    SELECT lp.id, lp.name, q.name::text, q.tenant_id FROM queen.log_partitions lp
      JOIN queen.queues q ON q.id = lp.queue_id WHERE lp.id = ANY (p_pids)
$$;
