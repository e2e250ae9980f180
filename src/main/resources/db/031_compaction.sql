-- 031_compaction.sql: log compaction of the partitions of compacted queues (cleanup.policy compact or
-- compact,delete; io.queen.compaction, docs/architecture.md "Compaction"). Compaction rewrites sealed segments
-- keeping the latest record of each key; a removed record becomes a hole (an empty frame) so every kept record keeps
-- its offset, and a rewrite may merge adjacent segments into one row covering exactly their span. Applied at every
-- boot, idempotently.

-- A queue's compaction settings, the Kafka topic configs of the same names; NULL = the broker default
-- (queen.compaction.default-*). cleanup.policy itself stays in queen.kafka_topics.
CREATE TABLE IF NOT EXISTS queen.queue_compaction (
    queue_id                  UUID PRIMARY KEY REFERENCES queen.queues (id) ON DELETE CASCADE,
    min_compaction_lag_ms     BIGINT CHECK (min_compaction_lag_ms >= 0),
    max_compaction_lag_ms     BIGINT CHECK (max_compaction_lag_ms >= 1),
    delete_retention_ms       BIGINT CHECK (delete_retention_ms >= 0),
    min_cleanable_dirty_ratio DOUBLE PRECISION CHECK (min_cleanable_dirty_ratio BETWEEN 0 AND 1)
);

-- Sets a queue's cleanup.policy ('delete', 'compact' or 'compact,delete'; checked by the caller). A queue created
-- over HTTP gets its queen.kafka_topics row here, with the partition count Kafka already saw for it. False for an
-- unknown queue.
CREATE OR REPLACE FUNCTION queen.kafka_set_cleanup_policy_v1(p_tenant UUID, p_name TEXT, p_policy TEXT)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH t AS (SELECT t.queue_id, t.partitions FROM queen.kafka_topics_v1(p_tenant, ARRAY[p_name]) t),
    u AS (
        INSERT INTO queen.kafka_topics (queue_id, partitions, cleanup_policy)
        SELECT t.queue_id, t.partitions, p_policy FROM t
        ON CONFLICT (queue_id) DO UPDATE SET cleanup_policy = EXCLUDED.cleanup_policy
        RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM u)
$$;

-- One row per compacted partition: offsets <= cleaned_to have been compacted (the clean section; a segment
-- boundary), the records the clean section kept at the last pass, what compaction removed so far, and when it last
-- rewrote the partition.
CREATE TABLE IF NOT EXISTS queen.log_compaction (
    partition_id    UUID PRIMARY KEY REFERENCES queen.log_partitions (id) ON DELETE CASCADE,
    cleaned_to      BIGINT NOT NULL,
    cleaned_at      TIMESTAMPTZ NOT NULL,
    records_removed BIGINT NOT NULL DEFAULT 0,
    bytes_removed   BIGINT NOT NULL DEFAULT 0
);
ALTER TABLE queen.log_compaction ADD COLUMN IF NOT EXISTS clean_records BIGINT NOT NULL DEFAULT 0;
-- The delete horizon: tombstones at or below tombstone_horizon were compacted by the pass at horizon_at (which removed
-- their keys' older records); they go at a pass delete.retention.ms after it, as Apache Kafka's cleaner removes a
-- tombstone delete.retention.ms after the cleaning that first kept it. -1 / NULL: no pass yet.
ALTER TABLE queen.log_compaction ADD COLUMN IF NOT EXISTS tombstone_horizon BIGINT NOT NULL DEFAULT -1;
ALTER TABLE queen.log_compaction ADD COLUMN IF NOT EXISTS horizon_at TIMESTAMPTZ;

-- Every partition of a compacted queue that holds records, with what the cycle needs to compact it:
--   cleanable_end  the last offset compaction may touch: the end of the last segment that is neither the head
--                  (the partition's last segment) nor newer than min.compaction.lag.ms; NULL = nothing cleanable
--   dirty_ratio    records after cleaned_to (head excluded) / those plus the records the clean section kept: Kafka's
--                  ratio counted in records, because a compacted segment's bytes are mostly holes and the per-row
--                  overhead of small compressed segments, which made a byte ratio let the dirty section grow to
--                  many times the live records
--   lag_ms         age of the oldest segment after cleaned_to (the compaction lag)
--   due            something cleanable after cleaned_to and (dirty_ratio >= min.cleanable.dirty.ratio or the oldest
--                  record after cleaned_to is older than max.compaction.lag.ms)
-- Reads segment headers only. Due first, most dirty first.
-- p_queue_id limits the listing to one queue (the queue's status view); NULL lists every compacted queue.
DROP FUNCTION IF EXISTS queen.log_compaction_due_v1(TIMESTAMPTZ, BIGINT, BIGINT, BIGINT, DOUBLE PRECISION);
DROP FUNCTION IF EXISTS queen.log_compaction_due_v1(TIMESTAMPTZ, BIGINT, BIGINT, BIGINT, DOUBLE PRECISION, UUID);
CREATE OR REPLACE FUNCTION queen.log_compaction_due_v1(p_now TIMESTAMPTZ, p_min_lag_ms BIGINT, p_max_lag_ms BIGINT,
                                                       p_delete_retention_ms BIGINT, p_min_dirty_ratio DOUBLE PRECISION,
                                                       p_queue_id UUID DEFAULT NULL)
RETURNS TABLE (partition_id UUID, queue_id UUID, queue_name TEXT, partition_name TEXT, log_start BIGINT,
               txns_start BIGINT, cleaned_to BIGINT, cleanable_end BIGINT, dirty_ratio DOUBLE PRECISION,
               delete_retention_ms BIGINT, lag_ms BIGINT, due BOOLEAN, tenant_id UUID, tombstone_horizon BIGINT,
               horizon_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    WITH p AS (
        SELECT lp.id, q.id AS qid, q.tenant_id AS tid, q.name::text AS qname, lp.name AS pname, lp.log_start, lp.txns_start,
               COALESCE(c.cleaned_to, lp.log_start - 1) AS cleaned_to, COALESCE(c.clean_records, 0) AS clean_records,
               COALESCE(c.tombstone_horizon, -1) AS tombstone_horizon, c.horizon_at,
               COALESCE(qc.min_compaction_lag_ms, p_min_lag_ms) AS min_lag,
               COALESCE(qc.max_compaction_lag_ms, p_max_lag_ms) AS max_lag,
               COALESCE(qc.delete_retention_ms, p_delete_retention_ms) AS del_ms,
               COALESCE(qc.min_cleanable_dirty_ratio, p_min_dirty_ratio) AS min_ratio
          FROM queen.kafka_topics kt
          JOIN queen.queues q ON q.id = kt.queue_id
          JOIN queen.log_partitions lp ON lp.queue_id = q.id
          LEFT JOIN queen.queue_compaction qc ON qc.queue_id = q.id
          LEFT JOIN queen.log_compaction c ON c.partition_id = lp.id
         WHERE kt.cleanup_policy LIKE 'compact%' AND lp.last_offset >= lp.log_start
           AND (p_queue_id IS NULL OR q.id = p_queue_id)),
    s AS (
        SELECT p.*, x.*
          FROM p, LATERAL (
              SELECT sum(s.end_offset - s.base_offset + 1) FILTER (WHERE s.base_offset > p.cleaned_to
                                                                   AND s.end_offset < lp.last_offset) AS dirty,
                     max(s.end_offset) FILTER (WHERE s.end_offset < lp.last_offset
                                                 AND s.created_at <= p_now - make_interval(secs => LEAST(p.min_lag, 3153600000000) / 1000.0))
                         AS cleanable_end,
                     min(s.created_at) FILTER (WHERE s.base_offset > p.cleaned_to) AS oldest_dirty
                FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id
               WHERE s.partition_id = p.id) x)
    SELECT s.id, s.qid, s.qname, s.pname, s.log_start, s.txns_start, s.cleaned_to, s.cleanable_end,
           COALESCE(s.dirty, 0)::float8 / GREATEST(s.clean_records + COALESCE(s.dirty, 0), 1),
           s.del_ms, COALESCE(GREATEST(0, (extract(epoch FROM p_now - s.oldest_dirty) * 1000)::bigint), 0),
           COALESCE(s.cleanable_end > s.cleaned_to
                    AND (COALESCE(s.dirty, 0)::float8 / GREATEST(s.clean_records + COALESCE(s.dirty, 0), 1)
                         >= s.min_ratio
                         OR (s.max_lag < 3153600000000  -- beyond 100 years: never (and no timestamp out of range)
                             AND s.oldest_dirty < p_now - make_interval(secs => s.max_lag / 1000.0))),
                    FALSE),
           s.tid, s.tombstone_horizon, s.horizon_at
      FROM s
     ORDER BY 12 DESC, 9 DESC
$$;

-- Replaces the segments covering exactly [p_base, p_end] (p_rows of them, as the caller read them) by one segment
-- holding p_blob, stamped with the newest created_at among them (created_at stays monotone); their hash sidecar
-- rows, when the span is at or past txns_start, by one row holding their hashes concatenated in offset order (the
-- hashes of removed records stay: an ack or a duplicate push naming one resolves to its offset). Moves
-- oldest_live_at / oldest_txn_at when the first segment / sidecar row was replaced. Raises unless the rows are
-- still those the caller read (a retention step may have deleted some meanwhile): the caller's transaction, and
-- with it the whole rewrite of the partition, then rolls back. The caller holds the partition row lock.
CREATE OR REPLACE FUNCTION queen.log_compaction_replace_v1(p_pid UUID, p_base BIGINT, p_end BIGINT, p_rows INT,
                                                           p_blob BYTEA)
RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    v_rows    INT;
    v_min     BIGINT;
    v_max     BIGINT;
    v_created TIMESTAMPTZ;
    v_txns    INT;
    v_hashes  BYTEA;
    v_lp      queen.log_partitions%ROWTYPE;
BEGIN
    SELECT * INTO v_lp FROM queen.log_partitions lp WHERE lp.id = p_pid;
    SELECT count(*), min(s.base_offset), max(s.end_offset), max(s.created_at)
      INTO v_rows, v_min, v_max, v_created
      FROM queen.log_segments s
     WHERE s.partition_id = p_pid AND s.base_offset BETWEEN p_base AND p_end;
    IF v_rows <> p_rows OR v_min <> p_base OR v_max <> p_end OR p_base < v_lp.log_start
       OR p_end >= v_lp.last_offset THEN
        RAISE EXCEPTION 'compaction: segments [%, %] of partition % changed meanwhile', p_base, p_end, p_pid
            USING ERRCODE = 'serialization_failure';
    END IF;
    SELECT count(*), string_agg(t.hashes, ''::bytea ORDER BY t.base_offset) INTO v_txns, v_hashes
      FROM queen.log_txns t WHERE t.partition_id = p_pid AND t.base_offset BETWEEN p_base AND p_end;
    IF v_txns > 0 AND (p_base < v_lp.txns_start OR octet_length(v_hashes) <> 16 * (p_end - p_base + 1)) THEN
        RAISE EXCEPTION 'compaction: the sidecar of [%, %] of partition % is partly purged', p_base, p_end, p_pid
            USING ERRCODE = 'serialization_failure';
    END IF;
    DELETE FROM queen.log_segments s WHERE s.partition_id = p_pid AND s.base_offset BETWEEN p_base AND p_end;
    INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)
    VALUES (p_pid, p_base, p_end, v_created, p_blob);
    IF v_txns > 0 THEN
        DELETE FROM queen.log_txns t WHERE t.partition_id = p_pid AND t.base_offset BETWEEN p_base AND p_end;
        INSERT INTO queen.log_txns (partition_id, base_offset, end_offset, created_at, hashes)
        VALUES (p_pid, p_base, p_end, v_created, v_hashes);
    END IF;
    UPDATE queen.log_partitions lp
       SET oldest_live_at = CASE WHEN p_base = lp.log_start THEN v_created ELSE lp.oldest_live_at END,
           oldest_txn_at = CASE WHEN v_txns > 0 AND p_base = lp.txns_start THEN v_created ELSE lp.oldest_txn_at END
     WHERE lp.id = p_pid AND (p_base = lp.log_start OR (v_txns > 0 AND p_base = lp.txns_start));
END $$;

-- Records a finished pass: offsets <= p_cleaned_to are compacted and hold p_kept records (a pass reads the clean
-- section from the log start), the delete horizon the caller decided; adds what it removed.
DROP FUNCTION IF EXISTS queen.log_compaction_done_v1(UUID, BIGINT, BIGINT, BIGINT, TIMESTAMPTZ);
DROP FUNCTION IF EXISTS queen.log_compaction_done_v1(UUID, BIGINT, BIGINT, BIGINT, BIGINT, TIMESTAMPTZ);
CREATE OR REPLACE FUNCTION queen.log_compaction_done_v1(p_pid UUID, p_cleaned_to BIGINT, p_kept BIGINT,
                                                        p_records BIGINT, p_bytes BIGINT, p_now TIMESTAMPTZ,
                                                        p_horizon BIGINT, p_horizon_at TIMESTAMPTZ)
RETURNS VOID
LANGUAGE sql AS $$
    INSERT INTO queen.log_compaction AS c (partition_id, cleaned_to, cleaned_at, clean_records, records_removed,
                                           bytes_removed, tombstone_horizon, horizon_at)
    VALUES (p_pid, p_cleaned_to, p_now, p_kept, p_records, p_bytes, p_horizon, p_horizon_at)
    ON CONFLICT (partition_id) DO UPDATE
       SET cleaned_to = GREATEST(c.cleaned_to, EXCLUDED.cleaned_to), cleaned_at = EXCLUDED.cleaned_at,
           clean_records = EXCLUDED.clean_records, tombstone_horizon = EXCLUDED.tombstone_horizon,
           horizon_at = EXCLUDED.horizon_at,
           records_removed = c.records_removed + EXCLUDED.records_removed,
           bytes_removed = c.bytes_removed + EXCLUDED.bytes_removed
$$;

-- What compaction did to each partition of a queue it ever compacted (the queue's status view and the console).
CREATE OR REPLACE FUNCTION queen.log_compaction_state_v1(p_queue_id UUID)
RETURNS TABLE (partition_id UUID, cleaned_to BIGINT, cleaned_at TIMESTAMPTZ, clean_records BIGINT,
               records_removed BIGINT, bytes_removed BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT c.partition_id, c.cleaned_to, c.cleaned_at, c.clean_records, c.records_removed, c.bytes_removed
      FROM queen.log_compaction c JOIN queen.log_partitions lp ON lp.id = c.partition_id
     WHERE lp.queue_id = p_queue_id
$$;

-- Completes a lease that covered only compaction holes (io.queen.pop.PopClaims): no message was delivered, so no
-- ack would end it. The cursor moves to the lease's end, as past a gap; only while the lease is the one granted.
CREATE OR REPLACE FUNCTION queen.log_pop_pass_holes_v1(p_pid UUID, p_group TEXT, p_worker TEXT, p_claimed_last BIGINT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE queen.log_consumers c
       SET committed = p_claimed_last, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
           batch_retry_count = 0
     WHERE c.partition_id = p_pid AND c.consumer_group = p_group AND c.worker_id = p_worker
       AND c.batch_end = p_claimed_last;
    RETURN FOUND;
END $$;

-- The compaction invariant (docs/architecture.md), as far as SQL sees it without opening a blob; the frame-level
-- half (every segment holds end - base + 1 frames; no two kept records of the clean section share a key) is checked
-- by the broker's tests, which decode the segments. No row = it holds.
--   compaction  cleaned_to <= last_offset and below the head (the partition's last segment, never compacted);
--               at or past log_start, cleaned_to ends a live segment (compaction rewrites whole segments)
CREATE OR REPLACE FUNCTION queen.compaction_invariant_violations_v1()
RETURNS TABLE (invariant TEXT, partition_id UUID, detail TEXT)
LANGUAGE sql STABLE AS $$
    SELECT 'compaction', c.partition_id,
           format('cleaned_to %s: log_start %s, last_offset %s, head segment base %s', c.cleaned_to, lp.log_start,
                  lp.last_offset, h.base_offset)
      FROM queen.log_compaction c
      JOIN queen.log_partitions lp ON lp.id = c.partition_id
      LEFT JOIN LATERAL (SELECT s.base_offset FROM queen.log_segments s WHERE s.partition_id = lp.id
                          ORDER BY s.base_offset DESC LIMIT 1) h ON TRUE
     WHERE c.cleaned_to > lp.last_offset
        OR c.cleaned_to >= h.base_offset
        OR (c.cleaned_to >= lp.log_start
            AND NOT EXISTS (SELECT 1 FROM queen.log_segments s
                             WHERE s.partition_id = c.partition_id AND s.end_offset = c.cleaned_to))
$$;
