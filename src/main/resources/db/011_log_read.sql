-- 011_log_read.sql: non-destructive reads of the log (message browse, one message by id, batched fetch by
-- offset). Every function here is STABLE: no lease, no cursor move, no write. PostgreSQL returns whole segment
-- rows; the broker decompresses and slices frames (PostgreSQL never looks inside a blob).

-- A partition's identity, queue configuration and watermarks, tenant-checked (NULL row set = not found).
CREATE OR REPLACE FUNCTION queen.log_partition_context_v1(p_tenant UUID, p_pid UUID)
RETURNS TABLE (partition_id UUID, queue_name TEXT, partition_name TEXT, namespace TEXT, task TEXT, priority INT,
               lease_time INT, retry_limit INT, retry_delay INT, ttl INT, encryption_enabled BOOLEAN,
               log_start BIGINT, last_offset BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT lp.id, q.name::text, lp.name, q.namespace::text, q.task::text, q.priority, q.lease_time, q.retry_limit,
           q.retry_delay, q.ttl, q.encryption_enabled, lp.log_start, lp.last_offset
      FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
     WHERE lp.id = p_pid AND q.tenant_id = p_tenant
$$;

-- transactionId hash -> offset through the sidecar (newest occurrence: outside the dedup window an id may repeat).
-- NULL when the hash row was purged or never existed.
CREATE OR REPLACE FUNCTION queen.log_locate_txn_v1(p_pid UUID, p_hash BYTEA)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT max(t.base_offset + h.idx)
      FROM queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) h
     WHERE t.partition_id = p_pid AND h.h = p_hash
$$;

-- Up to p_limit segments of a partition with base_offset < p_before, newest first (a backward PK walk): the
-- bounded fallback scan for a message whose hash was purged, in pages.
CREATE OR REPLACE FUNCTION queen.log_segments_before_v1(p_pid UUID, p_before BIGINT, p_limit INT)
RETURNS TABLE (base_offset BIGINT, end_offset BIGINT, created_at TIMESTAMPTZ, blob BYTEA)
LANGUAGE sql STABLE AS $$
    SELECT s.base_offset, s.end_offset, s.created_at, s.blob FROM queen.log_segments s
     WHERE s.partition_id = p_pid AND s.base_offset < p_before
     ORDER BY s.base_offset DESC LIMIT p_limit
$$;

-- Every consumer cursor of some partitions (status derivation: completed / processing / pending).
CREATE OR REPLACE FUNCTION queen.log_cursors_v1(p_pids UUID[])
RETURNS TABLE (partition_id UUID, consumer_group TEXT, committed BIGINT, batch_end BIGINT,
               lease_expires_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT c.partition_id, c.consumer_group, c.committed,
           CASE WHEN c.lease_expires_at > now() THEN c.batch_end END, c.lease_expires_at
      FROM queen.log_consumers c WHERE c.partition_id = ANY (p_pids)
     ORDER BY c.partition_id, c.consumer_group
$$;

-- Dead letters of some partitions (status dead_letter, error message and retry count of a browsed message).
CREATE OR REPLACE FUNCTION queen.log_dlq_of_v1(p_pids UUID[])
RETURNS TABLE (partition_id UUID, "offset" BIGINT, transaction_id TEXT, error TEXT, retry_count INT)
LANGUAGE sql STABLE AS $$
    SELECT d.partition_id, d."offset", d.transaction_id, d.error, d.retry_count
      FROM queen.log_dlq d WHERE d.partition_id = ANY (p_pids)
$$;

-- Message browse: the newest segments (created in [p_from, p_to]) of the tenant's partitions matching the
-- filters, newest first, at most p_max_segments. Each partition contributes at most p_per_partition segments
-- from a backward PK walk (bounded work per partition even when most of its data is older than p_from).
CREATE OR REPLACE FUNCTION queen.log_browse_segments_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                        p_namespace TEXT, p_task TEXT, p_from TIMESTAMPTZ,
                                                        p_to TIMESTAMPTZ, p_max_segments INT, p_per_partition INT)
RETURNS TABLE (partition_id UUID, queue_name TEXT, partition_name TEXT, namespace TEXT, task TEXT, priority INT,
               base_offset BIGINT, end_offset BIGINT, created_at TIMESTAMPTZ, blob BYTEA)
LANGUAGE sql STABLE AS $$
    SELECT lp.id, q.name::text, lp.name, q.namespace::text, q.task::text, q.priority,
           s.base_offset, s.end_offset, s.created_at, s.blob
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id
      CROSS JOIN LATERAL (
            SELECT s.base_offset, s.end_offset, s.created_at, s.blob FROM queen.log_segments s
             WHERE s.partition_id = lp.id
             ORDER BY s.base_offset DESC LIMIT p_per_partition) s
     WHERE q.tenant_id = p_tenant
       AND (p_queue IS NULL OR q.name = p_queue)
       AND (p_partition IS NULL OR lp.name = p_partition)
       AND (p_namespace IS NULL OR q.namespace = p_namespace)
       AND (p_task IS NULL OR q.task = p_task)
       AND lp.oldest_live_at IS NOT NULL
       AND s.created_at >= p_from AND s.created_at <= p_to
     ORDER BY s.created_at DESC, lp.id, s.base_offset DESC
     LIMIT p_max_segments
$$;

-- POST /api/v1/fetch: batched read by absolute offset (the Kafka facade's Fetch/ListOffsets). Per entry, in
-- order: the watermarks (high = last_offset + 1, logStart) and the segments from the one covering the offset
-- forward, while the entry's byte budget (compressed bytes) and the call's budget/record cap allow. Errors per entry:
-- UNKNOWN_TOPIC_OR_PARTITION (no such queue for the tenant), OFFSET_OUT_OF_RANGE (offset < logStart or > high).
-- A queue without that partition is an empty log (high 0). One row per entry without segments (base NULL).
DROP FUNCTION IF EXISTS queen.log_fetch_v1(UUID, TEXT[], TEXT[], BIGINT[], INT[], BIGINT, INT);
CREATE FUNCTION queen.log_fetch_v1(p_tenant UUID, p_queues TEXT[], p_partitions TEXT[], p_offsets BIGINT[],
                                   p_max_bytes INT[], p_budget BIGINT, p_max_records INT)
RETURNS TABLE (ord INT, error TEXT, high_watermark BIGINT, log_start BIGINT, base_offset BIGINT,
               end_offset BIGINT, created_at TIMESTAMPTZ, blob BYTEA)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    n        INT := cardinality(p_queues);
    v_qid    UUID;
    v_pid    UUID;
    v_start  BIGINT;
    v_high   BIGINT;
    v_off    BIGINT;
    v_bytes  BIGINT;
    v_used   BIGINT := 0;
    v_recs   INT := 0;
    v_any    BOOLEAN;
    s        RECORD;
BEGIN
    IF cardinality(p_partitions) <> n OR cardinality(p_offsets) <> n OR cardinality(p_max_bytes) <> n THEN
        RAISE EXCEPTION 'QFETCH misaligned arrays';
    END IF;
    FOR i IN 1 .. COALESCE(n, 0) LOOP
        ord := i;
        error := NULL; base_offset := NULL; end_offset := NULL; created_at := NULL; blob := NULL;
        -- a consumer's fetch names one topic's partitions in a row: its queue is looked up once
        IF i = 1 OR p_queues[i] IS DISTINCT FROM p_queues[i - 1] THEN
            SELECT q.id INTO v_qid FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queues[i];
        END IF;
        IF v_qid IS NULL THEN
            error := 'UNKNOWN_TOPIC_OR_PARTITION'; high_watermark := -1; log_start := -1;
            RETURN NEXT;
            CONTINUE;
        END IF;
        v_pid := NULL;
        SELECT lp.id, lp.log_start, lp.last_offset + 1 INTO v_pid, v_start, v_high
          FROM queen.log_partitions lp WHERE lp.queue_id = v_qid AND lp.name = p_partitions[i];
        IF v_pid IS NULL THEN
            v_start := 0; v_high := 0;
        END IF;
        high_watermark := v_high; log_start := v_start;
        v_off := p_offsets[i];
        IF v_off < v_start OR v_off > v_high THEN
            error := 'OFFSET_OUT_OF_RANGE';
            RETURN NEXT;
            CONTINUE;
        END IF;
        v_bytes := 0;
        v_any := FALSE;
        IF v_pid IS NOT NULL AND v_off < v_high THEN
            -- one ordered PK range scan from the segment covering the offset (the backward step finds its base)
            FOR s IN
                SELECT x.base_offset, x.end_offset, x.created_at, x.blob FROM queen.log_segments x
                 WHERE x.partition_id = v_pid
                   AND x.base_offset >= COALESCE((SELECT y.base_offset FROM queen.log_segments y
                                                   WHERE y.partition_id = v_pid AND y.base_offset <= v_off
                                                   ORDER BY y.base_offset DESC LIMIT 1), v_off)
                 ORDER BY x.base_offset
            LOOP
                CONTINUE WHEN s.end_offset < v_off;  -- the head probe found a segment ending before the offset
                -- an entry's first segment may exceed its own byte bound (a big segment must not stall a reader);
                -- the call's budget and record cap bind once anything at all was returned
                EXIT WHEN (v_any AND v_bytes + octet_length(s.blob) > p_max_bytes[i])
                       OR (v_used > 0 AND (v_used + octet_length(s.blob) > p_budget OR v_recs >= p_max_records));
                base_offset := s.base_offset; end_offset := s.end_offset; created_at := s.created_at;
                blob := s.blob;
                v_any := TRUE;
                v_bytes := v_bytes + octet_length(s.blob);
                v_used := v_used + octet_length(s.blob);
                v_recs := v_recs + (s.end_offset - GREATEST(s.base_offset, v_off) + 1)::int;
                RETURN NEXT;
            END LOOP;
        END IF;
        IF NOT v_any THEN
            base_offset := NULL; end_offset := NULL; created_at := NULL; blob := NULL;
            RETURN NEXT;
        END IF;
    END LOOP;
END $$;

-- One message's state for every consumer group of its queue (GET /api/v1/messages/:p/:t/groups): the groups with
-- a cursor on any partition of the queue or a dead letter of that offset, each with its cursor on this partition
-- (has_cursor false: it consumed nothing here yet), its lease while live, and its newest dead letter of the offset.
CREATE OR REPLACE FUNCTION queen.log_message_groups_v1(p_pid UUID, p_offset BIGINT)
RETURNS TABLE (consumer_group TEXT, has_cursor BOOLEAN, committed BIGINT, batch_end BIGINT, lease_id TEXT,
               lease_acquired_at TIMESTAMPTZ, lease_expires_at TIMESTAMPTZ, dlq_id UUID, failed_at TIMESTAMPTZ,
               error TEXT)
LANGUAGE sql STABLE AS $$
    WITH g AS (
        SELECT c.consumer_group FROM queen.log_consumers c
         WHERE c.partition_id IN (SELECT lp.id FROM queen.log_partitions lp
                                   WHERE lp.queue_id = (SELECT x.queue_id FROM queen.log_partitions x
                                                         WHERE x.id = p_pid))
        UNION
        SELECT d.consumer_group FROM queen.log_dlq d WHERE d.partition_id = p_pid AND d."offset" = p_offset)
    SELECT g.consumer_group, c.partition_id IS NOT NULL, c.committed,
           CASE WHEN live THEN c.batch_end END, CASE WHEN live THEN c.worker_id END,
           CASE WHEN live THEN c.lease_acquired_at END, CASE WHEN live THEN c.lease_expires_at END,
           d.id, d.failed_at, d.error
      FROM g
      LEFT JOIN queen.log_consumers c ON c.partition_id = p_pid AND c.consumer_group = g.consumer_group
      CROSS JOIN LATERAL (SELECT c.batch_end IS NOT NULL AND c.lease_expires_at > now() AS live) l
      LEFT JOIN LATERAL (SELECT x.id, x.failed_at, x.error FROM queen.log_dlq x
                          WHERE x.partition_id = p_pid AND x.consumer_group = g.consumer_group
                            AND x."offset" = p_offset
                          ORDER BY x.failed_at DESC LIMIT 1) d ON TRUE
     ORDER BY g.consumer_group
$$;
