-- 020_live.sql: the console's live figures and actions (queue purge, seek to an offset). Every broker upserts
-- ONE row every few seconds (queen.live.publish-ms) with its recent per-queue rates, its cumulative counts and who
-- took its recent leases; a reader sums the fresh rows. Nothing here is on the push/pop/ack path.

CREATE TABLE IF NOT EXISTS queen.live_brokers (
    broker_id  UUID PRIMARY KEY,          -- one running process (random per start)
    hostname   TEXT NOT NULL,
    worker_id  INT NOT NULL,
    port       INT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    sample     JSONB NOT NULL             -- {windowMs, totals, queues:[...], leases:{...}, poppers:[...]}
);

-- One broker's publication; rows silent for longer than p_keep_seconds (stopped brokers) are removed on the way.
CREATE OR REPLACE FUNCTION queen.live_publish_v1(p_broker UUID, p_hostname TEXT, p_worker INT, p_port INT,
                                                 p_started TIMESTAMPTZ, p_sample JSONB, p_keep_seconds INT)
RETURNS VOID
LANGUAGE sql AS $$
    INSERT INTO queen.live_brokers AS b (broker_id, hostname, worker_id, port, started_at, updated_at, sample)
    VALUES (p_broker, p_hostname, p_worker, p_port, p_started, now(), p_sample)
    ON CONFLICT (broker_id) DO UPDATE SET updated_at = now(), sample = EXCLUDED.sample;
    DELETE FROM queen.live_brokers b WHERE b.updated_at < now() - make_interval(secs => p_keep_seconds);
$$;

-- The brokers that published within p_fresh_seconds, with the age of their row.
CREATE OR REPLACE FUNCTION queen.live_read_v1(p_fresh_seconds INT)
RETURNS TABLE (broker_id UUID, hostname TEXT, worker_id INT, port INT, started_at TIMESTAMPTZ, age_ms BIGINT,
               sample JSONB)
LANGUAGE sql STABLE AS $$
    SELECT b.broker_id, b.hostname, b.worker_id, b.port, b.started_at,
           (extract(epoch FROM now() - b.updated_at) * 1000)::bigint, b.sample
      FROM queen.live_brokers b
     WHERE b.updated_at > now() - make_interval(secs => p_fresh_seconds)
     ORDER BY b.hostname, b.worker_id, b.port, b.broker_id
$$;

-- The live leases of a group in a tenant (one per leased partition): the cursor rows hold the lease id
-- (worker_id), when it was taken and when it expires. Cost: the group's cursor rows of the tenant's queues.
CREATE OR REPLACE FUNCTION queen.live_group_leases_v1(p_tenant UUID, p_group TEXT)
RETURNS TABLE (queue_name TEXT, partition_name TEXT, partition_id UUID, lease_id TEXT, acquired_at TIMESTAMPTZ,
               expires_at TIMESTAMPTZ, committed BIGINT, batch_end BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT q.name::text, lp.name, lp.id, c.worker_id, c.lease_acquired_at, c.lease_expires_at, c.committed,
           c.batch_end
      FROM queen.log_consumers c
      JOIN queen.log_partitions lp ON lp.id = c.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE q.tenant_id = p_tenant AND c.consumer_group = p_group
       AND c.worker_id IS NOT NULL AND c.lease_expires_at > now()
     ORDER BY q.name, lp.name
$$;

-- The partitions of a tenant's queue (purge works through them one at a time).
CREATE OR REPLACE FUNCTION queen.queue_partition_ids_v1(p_tenant UUID, p_queue TEXT)
RETURNS TABLE (partition_id UUID)
LANGUAGE sql STABLE AS $$
    SELECT lp.id FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
     WHERE q.tenant_id = p_tenant AND q.name = p_queue
     ORDER BY lp.id
$$;

-- Moves a group's cursor on one partition so that p_offset is the next offset delivered (clamped to the live
-- range: below log_start means the first live message, beyond the end means nothing until the next push), like
-- log_group_seek_v1: the lease and retry state are dropped. Only an existing cursor row moves.
DROP FUNCTION IF EXISTS queen.log_group_seek_offset_v1(UUID, TEXT, TEXT, TEXT, BIGINT);
CREATE FUNCTION queen.log_group_seek_offset_v1(p_tenant UUID, p_group TEXT, p_queue TEXT, p_partition TEXT,
                                               p_offset BIGINT)
RETURNS TABLE (partition_name TEXT, committed BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM queen.log_consumers c JOIN queen.log_partitions lp ON lp.id = c.partition_id
      JOIN queen.queues q ON q.id = lp.queue_id
     WHERE c.consumer_group = p_group AND q.tenant_id = p_tenant AND q.name = p_queue AND lp.name = p_partition
     ORDER BY c.partition_id FOR UPDATE OF c;
    RETURN QUERY
    UPDATE queen.log_consumers c
       SET committed = LEAST(GREATEST(p_offset - 1, lp.log_start - 1, -1), lp.last_offset),
           batch_end = NULL, worker_id = NULL, lease_expires_at = NULL, batch_retry_count = 0,
           attempt_count = 0, attempt_offset = NULL
      FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id
     WHERE c.partition_id = lp.id AND c.consumer_group = p_group AND q.tenant_id = p_tenant AND q.name = p_queue
       AND lp.name = p_partition
    RETURNING lp.name, c.committed;
END $$;
