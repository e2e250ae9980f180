-- 010_log_dlq.sql: dead-letter administration (browse, delete, replay) and queue deletion. log_dlq has no FK:
-- retention never touches it; the only removals are the DELETE route (every group's row for one address), the two
-- replay routes (one row, in the same transaction as its push), the bulk replay (the same move, row by row), the
-- bulk delete (the rows matching a filter, one bounded batch per call) and queue deletion.

-- A dead letter with its source names and tenant: the one row shape every DLQ read returns.
CREATE OR REPLACE VIEW queen.log_dlq_rows_v1 AS
    SELECT d.id, d.partition_id, d.consumer_group, d."offset", d.message_id, d.transaction_id, d.payload::text AS payload,
           d.error, d.retry_count, d.failed_at, d.trace_id, d.producer_sub, d.message_created_at,
           q.name::text AS queue_name, lp.name AS partition_name, q.namespace::text AS namespace, q.task::text AS task,
           q.tenant_id
      FROM queen.log_dlq d
      JOIN queen.log_partitions lp ON lp.id = d.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id;

-- Rows matching the dead-letter filters (all optional), tenant-checked: queue, consumer group, partition, failure
-- time, and the error text as the answers show it (an empty error reads 'Retries exhausted') containing p_error,
-- case-insensitively (a plain substring: no pattern characters).
CREATE OR REPLACE FUNCTION queen.log_dlq_matching_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                     p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ)
RETURNS TABLE (id UUID, partition_id UUID, consumer_group TEXT, "offset" BIGINT, message_id UUID,
               transaction_id TEXT, payload TEXT, error TEXT, retry_count INT, failed_at TIMESTAMPTZ,
               trace_id UUID, producer_sub TEXT, message_created_at TIMESTAMPTZ, queue_name TEXT,
               partition_name TEXT, namespace TEXT, task TEXT)
LANGUAGE sql STABLE AS $$
    SELECT r.id, r.partition_id, r.consumer_group, r."offset", r.message_id, r.transaction_id, r.payload, r.error,
           r.retry_count, r.failed_at, r.trace_id, r.producer_sub, r.message_created_at, r.queue_name,
           r.partition_name, r.namespace, r.task
      FROM queen.log_dlq_rows_v1 r
     WHERE r.tenant_id = p_tenant
       AND (p_queue IS NULL OR r.queue_name = p_queue)
       AND (p_partition IS NULL OR r.partition_name = p_partition)
       AND (p_group IS NULL OR r.consumer_group = p_group)
       AND (p_from IS NULL OR r.failed_at >= p_from)
       AND (p_to IS NULL OR r.failed_at <= p_to)
       AND (p_error IS NULL
            OR strpos(lower(COALESCE(NULLIF(r.error, ''), 'Retries exhausted')), lower(p_error)) > 0)
$$;

-- The same without the error filter (kept for brokers of the previous release during a rolling upgrade).
CREATE OR REPLACE FUNCTION queen.log_dlq_filtered_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                     p_from TIMESTAMPTZ, p_to TIMESTAMPTZ)
RETURNS TABLE (id UUID, partition_id UUID, consumer_group TEXT, "offset" BIGINT, message_id UUID,
               transaction_id TEXT, payload TEXT, error TEXT, retry_count INT, failed_at TIMESTAMPTZ,
               trace_id UUID, producer_sub TEXT, message_created_at TIMESTAMPTZ, queue_name TEXT,
               partition_name TEXT, namespace TEXT, task TEXT)
LANGUAGE sql STABLE AS $$
    SELECT * FROM queen.log_dlq_matching_v1(p_tenant, p_queue, p_group, p_partition, NULL, p_from, p_to)
$$;

-- One page, newest failure first; total = every matching row, ignoring limit/offset.
CREATE OR REPLACE FUNCTION queen.log_dlq_search_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                   p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
                                                   p_limit INT, p_offset INT)
RETURNS TABLE (total BIGINT, id UUID, partition_id UUID, consumer_group TEXT, "offset" BIGINT, message_id UUID,
               transaction_id TEXT, payload TEXT, error TEXT, retry_count INT, failed_at TIMESTAMPTZ,
               trace_id UUID, producer_sub TEXT, message_created_at TIMESTAMPTZ, queue_name TEXT,
               partition_name TEXT, namespace TEXT, task TEXT)
LANGUAGE sql STABLE AS $$
    WITH m AS (SELECT * FROM queen.log_dlq_matching_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from,
                                                       p_to)),
         t AS (SELECT count(*) AS n FROM m),
         page AS (SELECT * FROM m ORDER BY m.failed_at DESC, m.id LIMIT p_limit OFFSET p_offset)
    -- the LEFT JOIN keeps one row carrying the total even when the page is empty (id NULL)
    SELECT t.n, page.id, page.partition_id, page.consumer_group, page."offset", page.message_id,
           page.transaction_id, page.payload, page.error, page.retry_count, page.failed_at, page.trace_id,
           page.producer_sub, page.message_created_at, page.queue_name, page.partition_name, page.namespace, page.task
      FROM t LEFT JOIN page ON TRUE
     ORDER BY page.failed_at DESC, page.id
$$;

-- The same without the error filter (kept for brokers of the previous release during a rolling upgrade).
DROP FUNCTION IF EXISTS queen.log_dlq_browse_v1(UUID, TEXT, TEXT, TEXT, TIMESTAMPTZ, TIMESTAMPTZ, INT, INT);
CREATE FUNCTION queen.log_dlq_browse_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                        p_from TIMESTAMPTZ, p_to TIMESTAMPTZ, p_limit INT, p_offset INT)
RETURNS TABLE (total BIGINT, id UUID, partition_id UUID, consumer_group TEXT, "offset" BIGINT, message_id UUID,
               transaction_id TEXT, payload TEXT, error TEXT, retry_count INT, failed_at TIMESTAMPTZ,
               trace_id UUID, producer_sub TEXT, message_created_at TIMESTAMPTZ, queue_name TEXT,
               partition_name TEXT, namespace TEXT, task TEXT)
LANGUAGE sql STABLE AS $$
    SELECT * FROM queen.log_dlq_search_v1(p_tenant, p_queue, p_group, p_partition, NULL, p_from, p_to, p_limit,
                                          p_offset)
$$;

-- Bulk actions (count, replay, delete every letter matching a filter) visit the matching letters oldest failure
-- first, keyed (failed_at, id), one bounded batch per call: a batch starts after the key (p_after_at, p_after_id)
-- the previous call ended on (NULL: from the start), so a call resumes where the last one stopped even when rows
-- it visited stay (a replay refused as a duplicate keeps its letter). A bulk action confirmed on a count stops at
-- the newest key that count saw (p_until_at, p_until_id; NULL: no bound), so letters filed after the count are
-- not replayed or deleted with the ones the operator was told about.

-- How many matching letters come after the key and up to the bound (all of them for NULL keys), and the newest
-- key among them (NULL when there is none): the bound a bulk action sends back.
CREATE OR REPLACE FUNCTION queen.log_dlq_count_until_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                        p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
                                                        p_after_at TIMESTAMPTZ, p_after_id UUID,
                                                        p_until_at TIMESTAMPTZ, p_until_id UUID)
RETURNS TABLE (n BIGINT, last_at TIMESTAMPTZ, last_id UUID)
LANGUAGE sql STABLE AS $$
    WITH m AS (SELECT m.failed_at, m.id
                 FROM queen.log_dlq_matching_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from, p_to) m
                WHERE (p_after_at IS NULL OR (m.failed_at, m.id) > (p_after_at, p_after_id))
                  AND (p_until_at IS NULL OR (m.failed_at, m.id) <= (p_until_at, p_until_id))),
         l AS (SELECT m.failed_at, m.id FROM m ORDER BY m.failed_at DESC, m.id DESC LIMIT 1)
    SELECT (SELECT count(*) FROM m), l.failed_at, l.id FROM (SELECT 1) one LEFT JOIN l ON TRUE
$$;

-- The count alone, without a bound (kept for brokers of the previous release during a rolling upgrade).
CREATE OR REPLACE FUNCTION queen.log_dlq_count_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                  p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
                                                  p_after_at TIMESTAMPTZ, p_after_id UUID)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT c.n FROM queen.log_dlq_count_until_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from, p_to,
                                                 p_after_at, p_after_id, NULL, NULL) c
$$;

-- The next batch of matching letters after the key and up to the bound, oldest failure first (what a bulk replay
-- moves one by one).
CREATE OR REPLACE FUNCTION queen.log_dlq_batch_until_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                        p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
                                                        p_after_at TIMESTAMPTZ, p_after_id UUID,
                                                        p_until_at TIMESTAMPTZ, p_until_id UUID, p_limit INT)
RETURNS TABLE (id UUID, failed_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT m.id, m.failed_at
      FROM queen.log_dlq_matching_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from, p_to) m
     WHERE (p_after_at IS NULL OR (m.failed_at, m.id) > (p_after_at, p_after_id))
       AND (p_until_at IS NULL OR (m.failed_at, m.id) <= (p_until_at, p_until_id))
     ORDER BY m.failed_at, m.id
     LIMIT p_limit
$$;

-- Without a bound (kept for brokers of the previous release during a rolling upgrade).
CREATE OR REPLACE FUNCTION queen.log_dlq_batch_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_partition TEXT,
                                                  p_error TEXT, p_from TIMESTAMPTZ, p_to TIMESTAMPTZ,
                                                  p_after_at TIMESTAMPTZ, p_after_id UUID, p_limit INT)
RETURNS TABLE (id UUID, failed_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT * FROM queen.log_dlq_batch_until_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from, p_to,
                                               p_after_at, p_after_id, NULL, NULL, p_limit)
$$;

-- Deletes the next batch of matching letters after the key and up to the bound (only the matching rows: another
-- group's letter for the same message stays unless the filter matches it too); returns how many went and the
-- batch's last key (NULL when the batch was empty). The rows are locked in id order, so two bulk deletes over
-- overlapping batches queue instead of deadlocking; a letter a replay or another delete holds is waited for, then
-- found gone and not counted.
CREATE OR REPLACE FUNCTION queen.log_dlq_delete_batch_until_v1(p_tenant UUID, p_queue TEXT, p_group TEXT,
                                                               p_partition TEXT, p_error TEXT, p_from TIMESTAMPTZ,
                                                               p_to TIMESTAMPTZ, p_after_at TIMESTAMPTZ,
                                                               p_after_id UUID, p_until_at TIMESTAMPTZ,
                                                               p_until_id UUID, p_limit INT,
                                                               OUT deleted INT, OUT last_at TIMESTAMPTZ,
                                                               OUT last_id UUID)
LANGUAGE sql AS $$
    WITH batch AS (
        SELECT b.id, b.failed_at FROM queen.log_dlq_batch_until_v1(p_tenant, p_queue, p_group, p_partition,
                                                                   p_error, p_from, p_to, p_after_at, p_after_id,
                                                                   p_until_at, p_until_id, p_limit) b),
         locked AS (SELECT x.id FROM queen.log_dlq x JOIN batch b ON b.id = x.id ORDER BY x.id FOR UPDATE OF x),
         d AS (DELETE FROM queen.log_dlq x USING locked k WHERE x.id = k.id RETURNING x.id),
         l AS (SELECT b.failed_at, b.id FROM batch b ORDER BY b.failed_at DESC, b.id DESC LIMIT 1)
    SELECT (SELECT count(*)::int FROM d), l.failed_at, l.id FROM (SELECT 1) one LEFT JOIN l ON TRUE
$$;

-- Without a bound (kept for brokers of the previous release during a rolling upgrade).
CREATE OR REPLACE FUNCTION queen.log_dlq_delete_batch_v1(p_tenant UUID, p_queue TEXT, p_group TEXT,
                                                         p_partition TEXT, p_error TEXT, p_from TIMESTAMPTZ,
                                                         p_to TIMESTAMPTZ, p_after_at TIMESTAMPTZ, p_after_id UUID,
                                                         p_limit INT,
                                                         OUT deleted INT, OUT last_at TIMESTAMPTZ, OUT last_id UUID)
LANGUAGE sql AS $$
    SELECT * FROM queen.log_dlq_delete_batch_until_v1(p_tenant, p_queue, p_group, p_partition, p_error, p_from,
                                                      p_to, p_after_at, p_after_id, NULL, NULL, p_limit)
$$;

-- DELETE /api/v1/messages/:partitionId/:transactionId: every consumer group's dead letter at that address. A
-- live message is immutable (segments are never updated), so nothing else can be deleted here.
CREATE OR REPLACE FUNCTION queen.log_dlq_delete_v1(p_tenant UUID, p_pid UUID, p_txn TEXT)
RETURNS INT
LANGUAGE sql AS $$
    WITH d AS (
        DELETE FROM queen.log_dlq d
         WHERE d.partition_id = p_pid AND d.transaction_id = p_txn
           AND EXISTS (SELECT 1 FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
                        WHERE lp.id = p_pid AND q.tenant_id = p_tenant)
        RETURNING 1)
    SELECT count(*)::int FROM d
$$;

-- The newest dead letter filed for an address (several groups may have filed the same message).
CREATE OR REPLACE FUNCTION queen.log_dlq_find_v1(p_tenant UUID, p_pid UUID, p_txn TEXT)
RETURNS UUID
LANGUAGE sql STABLE AS $$
    SELECT d.id FROM queen.log_dlq d
      JOIN queen.log_partitions lp ON lp.id = d.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE d.partition_id = p_pid AND d.transaction_id = p_txn AND q.tenant_id = p_tenant
     ORDER BY d.failed_at DESC, d.id
     LIMIT 1
$$;

-- A dead letter's key is filed with it by log_dlq_head_v1 (007_log_ack.sql); the separate setter is gone.
DROP FUNCTION IF EXISTS queen.log_dlq_set_key_v1(UUID, BYTEA);

-- The key a dead letter keeps (its tenant checked by the caller's read of the row); NULL without one.
CREATE OR REPLACE FUNCTION queen.log_dlq_key_v1(p_id UUID)
RETURNS BYTEA
LANGUAGE sql STABLE AS $$
    SELECT d.message_key FROM queen.log_dlq d WHERE d.id = p_id
$$;

-- One dead letter with its source names (what the broker needs to build the replay frame), tenant-checked: the
-- unfiltered browse rows of the tenant with that id (both functions are inlined, so this is a primary-key probe).
CREATE OR REPLACE FUNCTION queen.log_dlq_get_v1(p_tenant UUID, p_id UUID)
RETURNS TABLE (id UUID, partition_id UUID, consumer_group TEXT, "offset" BIGINT, message_id UUID,
               transaction_id TEXT, payload TEXT, error TEXT, retry_count INT, failed_at TIMESTAMPTZ,
               trace_id UUID, producer_sub TEXT, message_created_at TIMESTAMPTZ, queue_name TEXT,
               partition_name TEXT, namespace TEXT, task TEXT)
LANGUAGE sql STABLE AS $$
    SELECT f.* FROM queen.log_dlq_filtered_v1(p_tenant, NULL, NULL, NULL, NULL, NULL) f WHERE f.id = p_id
$$;

-- Moves ONE dead letter back into the log, exactly once: lock the DLQ row (concurrent replays of the same row
-- queue here; the losers find it gone), provision and lock the destination partition row (lock order: membership
-- locks, DLQ row, then one partition row), push ONE frame through the normal allocator by CALLING queen.log_push_one_v1 (same
-- created_at stamp after the lock, same windowed dedup probe, same sidecar write), and delete the DLQ row in the
-- same transaction when it was queued. The broker built the blob and the 16-byte hash of the deterministic
-- transaction id 'dlq:<row id>', so a repeated replay of the same row is also caught by dedup.
-- verdict: 'moved' | 'duplicate' (nothing written, row kept; dup_offset = the existing frame) | 'gone'.
DROP FUNCTION IF EXISTS queen.log_dlq_move_v1(UUID, UUID, TEXT, TEXT, BYTEA, BYTEA);
CREATE FUNCTION queen.log_dlq_move_v1(p_tenant UUID, p_id UUID, p_queue TEXT, p_partition TEXT, p_hash BYTEA,
                                      p_blob BYTEA,
                                      OUT verdict TEXT, OUT partition_id UUID, OUT base_offset BIGINT,
                                      OUT created_at TIMESTAMPTZ, OUT dup_offset BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    v_win INT;
    v_last BIGINT;
    v_tstart BIGINT;
    v     RECORD;
    v_src TEXT;
BEGIN
    -- the membership locks of the source and destination queues before the DLQ row (the queue delete's order,
    -- 004_queue.sql): a delete of either waits for this move, or this move for that delete
    SELECT q.name INTO v_src FROM queen.log_dlq d
      JOIN queen.log_partitions lp ON lp.id = d.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE d.id = p_id AND q.tenant_id = p_tenant;
    IF v_src IS NULL THEN
        verdict := 'gone';
        RETURN;
    END IF;
    PERFORM queen.lock_queues_shared_v1(ARRAY[p_tenant, p_tenant], ARRAY[v_src, p_queue]);
    PERFORM 1 FROM queen.log_dlq d
      JOIN queen.log_partitions lp ON lp.id = d.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE d.id = p_id AND q.tenant_id = p_tenant
       FOR UPDATE OF d;
    IF NOT FOUND THEN
        verdict := 'gone';
        RETURN;
    END IF;
    PERFORM queen.provision_partitions_v1(ARRAY[p_tenant], ARRAY[p_queue], ARRAY[p_partition]);
    SELECT lp.id, q.dedup_window_seconds, lp.last_offset, lp.txns_start INTO partition_id, v_win, v_last, v_tstart
      FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id
     WHERE q.tenant_id = p_tenant AND q.name = p_queue AND lp.name = p_partition
       FOR UPDATE OF lp;
    v := queen.log_push_one_v1(partition_id, v_last, v_tstart, 1, p_hash, -1, v_win, p_blob, v_win);
    IF v.status = 'duplicate' THEN
        verdict := 'duplicate';
        dup_offset := v.dup_off[1];
        RETURN;
    END IF;
    DELETE FROM queen.log_dlq d WHERE d.id = p_id;
    -- no pg_notify here (it would serialize this commit on the database-wide notify lock, see PopWaiters): the
    -- broker tells its commit listeners after the commit, and they wake local pops and notify other brokers
    verdict := 'moved';
    base_offset := v.base_offset;
    created_at := v.created_at;
END $$;

-- DELETE /api/v1/resources/queues/:queue. log_txns and log_dlq have no FK, so their rows are deleted explicitly
-- (an orphaned sidecar or dead-letter row would be unreachable forever). Locks in the global order:
--   1. the queue-membership lock EXCLUSIVE (004_queue.sql): waits out every transaction that created a partition
--      in this queue, resolved one it has yet to lock, or is replaying a dead letter from or into it (they hold
--      it shared), and none of those can start until this commits; they then find the queue gone and create it
--      anew. So a push racing the delete either lands before it (and goes with the queue) or after it (into a
--      new, empty queue of the same name); neither answers an error;
--   2. the queue's dead letters (a replay takes the membership lock before its DLQ row, so none is held here);
--   3. the queue row FOR UPDATE, then its partition rows in ascending id: waits out in-flight pushes into
--      existing partitions, so no sidecar row is written behind us;
--   4. its cursor rows in (partition_id, group) order: waits out in-flight acks, so a dead letter filed by one of
--      them (log_dlq_head_v1 moves the cursor in the filing transaction) is committed before step 5 looks;
--   5. the sidecar, the dead letters filed meanwhile and the traces, then the queue row, which cascades to partitions,
--      segments, consumers and subscription metadata.
-- Nothing that holds a cursor row waits for a partition or queue row or a membership lock (acks never touch them;
-- a dead letter is filed with one UPDATE of the cursor row, so the FK is not re-checked; a wildcard pop inserts
-- its first-contact cursors before it claims any existing one), and a push takes its membership locks before any
-- partition row, so this order cannot close a cycle. Returns whether it existed.
CREATE OR REPLACE FUNCTION queen.delete_queue_v1(p_tenant UUID, p_name TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_qid UUID;
BEGIN
    PERFORM pg_advisory_xact_lock(queen.queue_lock_key_v1(p_tenant, p_name));
    SELECT q.id INTO v_qid FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_name;
    IF v_qid IS NULL THEN
        RETURN FALSE;
    END IF;
    DELETE FROM queen.log_dlq d
     WHERE d.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid);
    PERFORM 1 FROM queen.queues q WHERE q.id = v_qid FOR UPDATE;
    PERFORM 1 FROM queen.log_partitions lp WHERE lp.queue_id = v_qid ORDER BY lp.id FOR UPDATE;
    PERFORM 1 FROM queen.log_consumers c
     WHERE c.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid)
     ORDER BY c.partition_id, c.consumer_group FOR UPDATE;
    DELETE FROM queen.log_txns t
     WHERE t.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid);
    DELETE FROM queen.log_dlq d
     WHERE d.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid);
    -- traces have no FK either (017_traces.sql)
    DELETE FROM queen.message_trace_names n
     WHERE n.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid);
    DELETE FROM queen.message_traces t
     WHERE t.partition_id IN (SELECT lp.id FROM queen.log_partitions lp WHERE lp.queue_id = v_qid);
    DELETE FROM queen.queues q WHERE q.id = v_qid;
    RETURN TRUE;
END $$;
