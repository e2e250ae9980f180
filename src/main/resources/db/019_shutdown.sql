-- 019_shutdown.sql: what a stopping broker gives back. Applied at every boot, idempotently.

-- Releases the leases a stopping broker granted, so other brokers' consumers get those batches at once instead of
-- after lease expiry. Input i names a partition and a lease id (worker_id) this broker granted on it; a cursor row
-- is released only while that lease is still its live lease (an ack, an expiry followed by another claim, or a
-- group delete meanwhile leaves the row alone). A release is a redelivery from the cursor: committed is kept and no
-- retry budget is spent (the same as an expired lease). Cursor rows are locked in (partition_id, consumer_group)
-- order, the global lock order. The queues that got work back are announced on queen_push (delivered at commit),
-- so long polls parked on other brokers claim at once. Returns the number of cursor rows released.
DROP FUNCTION IF EXISTS queen.log_release_leases_v1(UUID[], TEXT[]);
CREATE FUNCTION queen.log_release_leases_v1(p_pids UUID[], p_workers TEXT[])
RETURNS INT LANGUAGE plpgsql AS $$
DECLARE
    v_now  TIMESTAMPTZ := clock_timestamp();
    v_pids UUID[];
BEGIN
    WITH wanted AS (
        SELECT DISTINCT w.pid, w.worker FROM unnest(p_pids, p_workers) AS w(pid, worker)
         WHERE w.pid IS NOT NULL AND w.worker IS NOT NULL AND w.worker <> ''
    ), locked AS (
        SELECT c.partition_id, c.consumer_group FROM queen.log_consumers c
          JOIN wanted w ON c.partition_id = w.pid AND c.worker_id = w.worker
         WHERE c.batch_end IS NOT NULL AND c.lease_expires_at > v_now
         ORDER BY c.partition_id, c.consumer_group
           FOR UPDATE OF c
    ), released AS (
        UPDATE queen.log_consumers c
           SET batch_end = NULL, worker_id = NULL, lease_expires_at = NULL
          FROM locked l
         WHERE c.partition_id = l.partition_id AND c.consumer_group = l.consumer_group
        RETURNING c.partition_id
    )
    SELECT array_agg(r.partition_id) INTO v_pids FROM released r;
    PERFORM pg_notify('queen_push', k.key)
       FROM (SELECT DISTINCT q.tenant_id::text || '/' || q.name AS key
               FROM unnest(v_pids) AS r(pid)
               JOIN queen.log_partitions lp ON lp.id = r.pid
               JOIN queen.queues q ON q.id = lp.queue_id) k;
    RETURN COALESCE(cardinality(v_pids), 0);
END $$;
