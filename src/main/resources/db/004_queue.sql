-- 004_queue.sql: queue identity, configuration and implicit provisioning.

-- Full-replace upsert of a queue's configuration (POST /api/v1/configure). The broker validated and
-- defaulted every option; this only writes the row and returns it (what the row holds is what pop grants).
-- A NULL namespace or task (not given) comes from the name, the one rule every queue follows whether configured
-- or created by its first push (provision_partitions_v1): "orders.created" -> orders/created, "orders" -> orders/''.
DROP FUNCTION IF EXISTS queen.configure_queue_v1(UUID, TEXT, TEXT, TEXT, JSONB);
CREATE FUNCTION queen.configure_queue_v1(p_tenant UUID, p_name TEXT, p_namespace TEXT, p_task TEXT, o JSONB)
RETURNS SETOF queen.queues
LANGUAGE sql AS $$
    INSERT INTO queen.queues AS q (tenant_id, name, namespace, task, priority, lease_time, retry_limit, retry_delay,
        ttl, dead_letter_queue, dlq_after_max_retries, delayed_processing, window_buffer, retention_seconds,
        completed_retention_seconds, retention_enabled, encryption_enabled, max_wait_time_seconds, max_queue_size,
        min_pop_wait_time, dedup_window_seconds)
    VALUES (p_tenant, p_name, COALESCE(p_namespace, split_part(p_name, '.', 1)),
        COALESCE(p_task, split_part(p_name, '.', 2)), (o->>'priority')::int, (o->>'leaseTime')::int,
        (o->>'retryLimit')::int, (o->>'retryDelay')::int, (o->>'ttl')::int, (o->>'deadLetterQueue')::boolean,
        (o->>'dlqAfterMaxRetries')::boolean, (o->>'delayedProcessing')::int, (o->>'windowBuffer')::int,
        (o->>'retentionSeconds')::int, (o->>'completedRetentionSeconds')::int, (o->>'retentionEnabled')::boolean,
        (o->>'encryptionEnabled')::boolean, (o->>'maxWaitTimeSeconds')::int, (o->>'maxSize')::int,
        (o->>'minPopWaitTime')::int, (o->>'dedupWindowSeconds')::int)
    ON CONFLICT (tenant_id, name) DO UPDATE SET
        namespace = EXCLUDED.namespace, task = EXCLUDED.task, priority = EXCLUDED.priority,
        lease_time = EXCLUDED.lease_time, retry_limit = EXCLUDED.retry_limit, retry_delay = EXCLUDED.retry_delay,
        ttl = EXCLUDED.ttl, dead_letter_queue = EXCLUDED.dead_letter_queue,
        dlq_after_max_retries = EXCLUDED.dlq_after_max_retries, delayed_processing = EXCLUDED.delayed_processing,
        window_buffer = EXCLUDED.window_buffer, retention_seconds = EXCLUDED.retention_seconds,
        completed_retention_seconds = EXCLUDED.completed_retention_seconds,
        retention_enabled = EXCLUDED.retention_enabled, encryption_enabled = EXCLUDED.encryption_enabled,
        max_wait_time_seconds = EXCLUDED.max_wait_time_seconds, max_queue_size = EXCLUDED.max_queue_size,
        min_pop_wait_time = EXCLUDED.min_pop_wait_time, dedup_window_seconds = EXCLUDED.dedup_window_seconds
    RETURNING q.*
$$;

-- The queue-membership lock: one transaction-scoped advisory lock per (tenant, queue name). Whoever creates
-- partitions in a queue, resolves partitions it is about to lock, or replays a dead letter from or into it holds it
-- SHARED (provision_partitions_v1, a multi-partition push, log_dlq_move_v1); a queue delete holds it EXCLUSIVE
-- before anything else (delete_queue_v1), and partition cleanup only takes partitions whose queue it can lock
-- exclusively without waiting. So no partition is created in, or resolved from, a queue whose delete is under
-- way: the delete waits for those transactions to commit, and they wait for the delete to commit and then see
-- the queue gone (and create it again). Keyed by name, not id: a push names its queue, and the id is what a
-- delete changes.
CREATE OR REPLACE FUNCTION queen.queue_lock_key_v1(p_tenant UUID, p_name TEXT)
RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('queen_queue:' || p_tenant::text || '/' || p_name, 0)
$$;

-- Takes the queue-membership lock SHARED on every distinct queue named, in key order (shared holders never wait
-- on each other; the order keeps waiting deletes from interleaving them into a cycle).
CREATE OR REPLACE FUNCTION queen.lock_queues_shared_v1(p_tenants UUID[], p_queues TEXT[])
RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    -- PERFORM runs the query to its end (an SQL-language function would stop at the first row)
    PERFORM pg_advisory_xact_lock_shared(k.key)
       FROM (SELECT DISTINCT queen.queue_lock_key_v1(i.t, i.q) AS key
               FROM unnest(p_tenants, p_queues) AS i(t, q) ORDER BY 1) k;
END $$;

-- Implicit provisioning of (queue, partition) pairs, used by push and early subscriptions. Only the missing
-- rows are inserted, each batch ORDER BY its unique key so concurrent provisioners queue on the same
-- speculative-insert locks in the same order instead of convoying. Columns not named take the table
-- defaults (notably lease_time 60). namespace/task come from a dotted name: "orders.created" -> orders/created.
-- On return the caller holds the membership lock of every queue named, so the partitions exist until it commits.
CREATE OR REPLACE FUNCTION queen.provision_partitions_v1(p_tenants UUID[], p_queues TEXT[], p_partitions TEXT[])
RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    -- Before any read: a queue delete under way is waited out here, and every statement below takes its
    -- snapshot after that delete committed, so it sees the queue gone and creates it again (never inserts a
    -- partition into the doomed row, whose FK check would fail or whose sidecar rows would be orphaned)
    PERFORM queen.lock_queues_shared_v1(p_tenants, p_queues);
    INSERT INTO queen.queues (tenant_id, name, namespace, task)
    SELECT DISTINCT i.t, i.q, split_part(i.q, '.', 1), split_part(i.q, '.', 2)
      FROM unnest(p_tenants, p_queues) AS i(t, q)
     WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.tenant_id = i.t AND q.name = i.q)
     ORDER BY 1, 2
    ON CONFLICT (tenant_id, name) DO NOTHING;

    INSERT INTO queen.log_partitions (queue_id, name)
    SELECT DISTINCT q.id, i.p
      FROM unnest(p_tenants, p_queues, p_partitions) AS i(t, qn, p)
      JOIN queen.queues q ON q.tenant_id = i.t AND q.name = i.qn
     WHERE NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.queue_id = q.id AND lp.name = i.p)
     ORDER BY 1, 2
    ON CONFLICT (queue_id, name) DO NOTHING;
END $$;

-- The per-queue options the broker acts on before touching the log (queue.QueueFlags, a TTL cache): whether
-- payloads are encrypted (push) and how long a pop may hold an under-full batch (pop, minPopWaitTime).
DROP FUNCTION IF EXISTS queen.queue_encryption_v1(UUID, TEXT[]);
CREATE OR REPLACE FUNCTION queen.queue_flags_v1(p_tenant UUID, p_names TEXT[])
RETURNS TABLE (name TEXT, encryption_enabled BOOLEAN, min_pop_wait_time INT)
LANGUAGE sql STABLE AS $$
    SELECT q.name::text, COALESCE(q.encryption_enabled, FALSE), COALESCE(q.min_pop_wait_time, 0)
      FROM queen.queues q
     WHERE q.tenant_id = p_tenant AND q.name = ANY (p_names)
$$;
