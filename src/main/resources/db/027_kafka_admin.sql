-- 027_kafka_admin.sql: what the Kafka admin calls read and change beside the topics of 021_kafka.sql
-- (CreatePartitions, DescribeLogDirs, DescribeProducers; docs/kafka.md "APIs"). Applied at every boot, idempotently.

-- Grows a topic to p_count partitions (CreatePartitions). The current count is the one Metadata answers
-- (kafka_topics_v1: the kafka_topics row, or for a queue created over HTTP its highest numeric partition + 1), so
-- an HTTP queue gets its row here. Two grows of one topic are serialized on its queue row (FOR NO KEY UPDATE: pushes
-- referencing the queue take only KEY SHARE and are not held up); the second sees the first's count, and GREATEST
-- keeps the count from ever going down. status: 'ok' (grown, or would be with p_validate_only), 'not_increase'
-- (p_count <= current), 'unknown' (no such queue); current: the count before.
CREATE OR REPLACE FUNCTION queen.kafka_create_partitions_v1(p_tenant UUID, p_name TEXT, p_count INT,
                                                            p_validate_only BOOLEAN)
RETURNS TABLE (status TEXT, current INT)
LANGUAGE plpgsql AS $$
DECLARE
    v_queue   UUID;
    v_current INT;
BEGIN
    SELECT q.id INTO v_queue FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_name
       FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown'::text, -1;
        RETURN;
    END IF;
    SELECT t.partitions INTO v_current FROM queen.kafka_topics_v1(p_tenant, ARRAY[p_name]) t;
    IF p_count <= v_current THEN
        RETURN QUERY SELECT 'not_increase'::text, v_current;
        RETURN;
    END IF;
    IF NOT p_validate_only THEN
        INSERT INTO queen.kafka_topics AS kt (queue_id, partitions) VALUES (v_queue, p_count)
        ON CONFLICT (queue_id) DO UPDATE SET partitions = GREATEST(kt.partitions, EXCLUDED.partitions);
    END IF;
    RETURN QUERY SELECT 'ok'::text, v_current;
END $$;

-- The stored size of the Kafka partitions (numeric names) of the tenant's queues, all (p_names NULL) or the named
-- ones (DescribeLogDirs): the bytes of the partition's segments as stored, compressed, without the table's row
-- and index overhead. octet_length of an out-of-line blob is read from its TOAST pointer, so the blobs are not
-- fetched. A partition never written has no row.
CREATE OR REPLACE FUNCTION queen.kafka_partition_sizes_v1(p_tenant UUID, p_names TEXT[])
RETURNS TABLE (queue_name TEXT, partition_index INT, size_bytes BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT q.name, lp.name::int, COALESCE((SELECT sum(octet_length(s.blob)) FROM queen.log_segments s
                                            WHERE s.partition_id = lp.id), 0)::bigint
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name ~ '^[0-9]{1,6}$'
     WHERE q.tenant_id = p_tenant AND (p_names IS NULL OR q.name = ANY (p_names))
$$;

-- The producers of open transactions that added partition p_partition of queue p_queue (DescribeProducers): the
-- only per-partition producer state Queen keeps. last_sequence: the last sequence of the batches staged for that
-- partition (-1 before the first); last_at: when the transaction last staged a batch or changed state.
CREATE OR REPLACE FUNCTION queen.kafka_partition_producers_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT)
RETURNS TABLE (producer_id BIGINT, epoch SMALLINT, last_sequence INT, last_at TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
    SELECT t.producer_id, t.epoch,
           COALESCE((SELECT max(r.base_sequence + r.record_count - 1) FROM queen.kafka_txn_records r
                      WHERE r.producer_id = t.producer_id AND r.queue_name = p_queue
                        AND r.partition_name = p_partition), -1),
           t.updated_at
      FROM queen.kafka_transactions t
      JOIN queen.kafka_txn_partitions tp ON tp.producer_id = t.producer_id
     WHERE t.tenant_id = p_tenant AND t.state = 'Ongoing' AND tp.queue_name = p_queue
       AND tp.partition_name = p_partition
     ORDER BY t.producer_id
$$;
