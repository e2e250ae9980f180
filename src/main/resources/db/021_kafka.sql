-- 021_kafka.sql: what the Kafka listener (io.queen.kafka, docs/kafka.md) keeps beside the queues. A topic is a
-- queue; Kafka partition n is the queue's partition named 'n'. Applied at every boot, idempotently.

-- A topic's partition count (a queue has no such notion: its partitions appear on first push). A queue without a
-- row (created over HTTP) counts as many partitions as its highest numeric partition name + 1, at least 1.
CREATE TABLE IF NOT EXISTS queen.kafka_topics (
    queue_id   UUID PRIMARY KEY REFERENCES queen.queues (id) ON DELETE CASCADE,
    partitions INTEGER NOT NULL CHECK (partitions >= 1)
);
-- The topic's cleanup.policy as created ('delete', 'compact' or 'compact,delete'): described back to clients
-- (Kafka Streams checks its changelogs' policy); Queen keeps every record of a compacted topic (no compaction).
ALTER TABLE queen.kafka_topics ADD COLUMN IF NOT EXISTS cleanup_policy TEXT NOT NULL DEFAULT 'delete';

-- Producer ids handed out by InitProducerId: unique across brokers and restarts.
CREATE SEQUENCE IF NOT EXISTS queen.kafka_producer_ids;

-- The tenant's topics: all (p_names NULL) or the named ones that exist.
-- (dropped only while it still has its shape without cleanup_policy, so a boot does not drop it under callers)
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'queen' AND p.proname = 'kafka_topics_v1'
                  AND pg_get_function_result(p.oid) NOT LIKE '%cleanup_policy%') THEN
        DROP FUNCTION queen.kafka_topics_v1(UUID, TEXT[]);
    END IF;
END $$;
CREATE OR REPLACE FUNCTION queen.kafka_topics_v1(p_tenant UUID, p_names TEXT[])
RETURNS TABLE (name TEXT, queue_id UUID, partitions INT, retention_seconds INT, retention_enabled BOOLEAN,
               cleanup_policy TEXT)
LANGUAGE sql STABLE AS $$
    SELECT q.name, q.id,
           COALESCE(kt.partitions,
                    (SELECT GREATEST(1, COALESCE(max(lp.name::int) + 1, 1)) FROM queen.log_partitions lp
                      WHERE lp.queue_id = q.id AND lp.name ~ '^[0-9]{1,6}$')),
           q.retention_seconds, q.retention_enabled, COALESCE(kt.cleanup_policy, 'delete')
      FROM queen.queues q LEFT JOIN queen.kafka_topics kt ON kt.queue_id = q.id
     WHERE q.tenant_id = p_tenant AND (p_names IS NULL OR q.name = ANY (p_names))
     ORDER BY q.name
$$;

-- Creates a topic: its queue (with the defaults of a queue a push provisions, but the dedup window given: a
-- Kafka producer retries a batch for delivery.timeout.ms, two minutes by default, so an hour of hashes would
-- only outgrow the brokers' dedup indexes), its partition count and cleanup policy. False when the queue exists
-- already (nothing changes then). p_retention_seconds > 0 turns the queue's retention on.
DROP FUNCTION IF EXISTS queen.kafka_create_topic_v1(UUID, TEXT, INT, INT);
DROP FUNCTION IF EXISTS queen.kafka_create_topic_v1(UUID, TEXT, INT, INT, TEXT);
CREATE OR REPLACE FUNCTION queen.kafka_create_topic_v1(p_tenant UUID, p_name TEXT, p_partitions INT,
                                                       p_retention_seconds INT, p_cleanup_policy TEXT,
                                                       p_dedup_window_seconds INT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_id UUID;
BEGIN
    INSERT INTO queen.queues AS q (tenant_id, name, retention_seconds, retention_enabled, dedup_window_seconds)
    VALUES (p_tenant, p_name, GREATEST(COALESCE(p_retention_seconds, 0), 0), COALESCE(p_retention_seconds, 0) > 0,
            GREATEST(p_dedup_window_seconds, 0))
    ON CONFLICT (tenant_id, name) DO NOTHING
    RETURNING q.id INTO v_id;
    IF v_id IS NULL THEN
        RETURN FALSE;
    END IF;
    INSERT INTO queen.kafka_topics (queue_id, partitions, cleanup_policy)
    VALUES (v_id, p_partitions, COALESCE(p_cleanup_policy, 'delete'));
    RETURN TRUE;
END $$;

-- Watermarks of (queue, partition) entries, in order: the first offset kept and the next offset to be written
-- (0 and 0 for a partition never written); -1, -1 for an unknown queue.
CREATE OR REPLACE FUNCTION queen.kafka_watermarks_v1(p_tenant UUID, p_queues TEXT[], p_partitions TEXT[])
RETURNS TABLE (ord INT, log_start BIGINT, high_watermark BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT e.ord::int,
           CASE WHEN q.id IS NULL THEN -1 ELSE COALESCE(lp.log_start, 0) END,
           CASE WHEN q.id IS NULL THEN -1 ELSE COALESCE(lp.last_offset + 1, 0) END
      FROM unnest(p_queues, p_partitions) WITH ORDINALITY AS e (queue, part, ord)
      LEFT JOIN queen.queues q ON q.tenant_id = p_tenant AND q.name = e.queue
      LEFT JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = e.part
     ORDER BY e.ord
$$;

-- The first offset of the first segment committed at or after p_at in a partition, or NULL when none is (Kafka's
-- ListOffsets by timestamp, at segment granularity: a segment's commit time stands for its records').
CREATE OR REPLACE FUNCTION queen.kafka_offset_for_time_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                          p_at TIMESTAMPTZ)
RETURNS TABLE (base_offset BIGINT, created_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT GREATEST(s.base_offset, lp.log_start), s.created_at
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partition
      JOIN queen.log_segments s ON s.partition_id = lp.id
     WHERE q.tenant_id = p_tenant AND q.name = p_queue AND s.created_at >= p_at AND s.end_offset >= lp.log_start
     ORDER BY s.base_offset
     LIMIT 1
$$;

-- A topic's retention.ms: the queue's retention in seconds (0 = off). False for an unknown queue.
CREATE OR REPLACE FUNCTION queen.kafka_set_retention_v1(p_tenant UUID, p_name TEXT, p_retention_seconds INT)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH u AS (
        UPDATE queen.queues SET retention_seconds = GREATEST(p_retention_seconds, 0),
                                retention_enabled = p_retention_seconds > 0
         WHERE tenant_id = p_tenant AND name = p_name
        RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM u)
$$;

-- Kafka DeleteRecords on one partition: under the partition's row lock (as a retention step), deletes the whole
-- segments that end below p_offset (-1 = the high watermark), advances log_start (never backwards) and
-- oldest_live_at, and records the deletion in retention_history as 'delete_records'. Like retention it deletes
-- whole segments only, so a segment straddling p_offset stays readable and the answered low watermark (the new
-- log_start) can be below p_offset. status: 'ok'; 'unknown' for a queue that does not exist;
-- 'out_of_range' for an offset beyond the high watermark (nothing deleted).
CREATE OR REPLACE FUNCTION queen.kafka_delete_records_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                         p_offset BIGINT)
RETURNS TABLE (status TEXT, low_watermark BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    v_queue UUID;
    v_pid   UUID;
    v_start BIGINT;
    v_last  BIGINT;
    v_bound BIGINT;
BEGIN
    SELECT q.id INTO v_queue FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown'::text, -1::bigint;
        RETURN;
    END IF;
    SELECT lp.id, lp.log_start, lp.last_offset INTO v_pid, v_start, v_last
      FROM queen.log_partitions lp WHERE lp.queue_id = v_queue AND lp.name = p_partition FOR UPDATE;
    IF NOT FOUND THEN
        -- never written: log start and high watermark are 0
        RETURN QUERY SELECT CASE WHEN p_offset IN (-1, 0) THEN 'ok' ELSE 'out_of_range' END, 0::bigint;
        RETURN;
    END IF;
    v_bound := CASE WHEN p_offset = -1 THEN v_last + 1 ELSE p_offset END;
    IF v_bound < 0 OR v_bound > v_last + 1 THEN
        RETURN QUERY SELECT 'out_of_range'::text, v_start;
        RETURN;
    END IF;
    IF v_bound > v_start THEN
        SELECT d.new_log_start INTO v_start
          FROM queen.log_delete_prefix_v1(v_pid, v_queue, v_start, v_bound, 'delete_records') d;
    END IF;
    RETURN QUERY SELECT 'ok'::text, v_start;
END $$;
