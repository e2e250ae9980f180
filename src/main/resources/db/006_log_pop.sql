-- 006_log_pop.sql: the read path. A consumer group's progress in a partition is ONE cursor row
-- (queen.log_consumers); a leased batch is the span (committed, batch_end]; a row holds at most one lease.

-- Seed offset for a group's first contact with a partition: the last offset BEFORE the first segment created
-- at or after p_from (created_at is monotone per partition, so this is one forward walk on the primary key),
-- or last_offset when no such segment exists.
CREATE OR REPLACE FUNCTION queen.log_seed_offset_v1(p_pid UUID, p_from TIMESTAMPTZ)
RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT COALESCE(
        (SELECT s.base_offset - 1 FROM queen.log_segments s
          WHERE s.partition_id = p_pid AND s.created_at >= p_from
          ORDER BY s.base_offset LIMIT 1),
        (SELECT lp.last_offset FROM queen.log_partitions lp WHERE lp.id = p_pid))
$$;

-- The durable subscription start of a named group on a queue, recorded once at first contact (later pops
-- ignore their subscription parameters). 'all' = epoch, 'new' = now, or an explicit timestamp.
CREATE OR REPLACE FUNCTION queen.log_subscription_v1(p_tenant UUID, p_queue_id UUID, p_group TEXT, p_mode TEXT,
                                                     p_from TIMESTAMPTZ)
RETURNS TIMESTAMPTZ
LANGUAGE plpgsql AS $$
DECLARE
    v_ts TIMESTAMPTZ;
BEGIN
    SELECT m.subscription_timestamp INTO v_ts FROM queen.consumer_groups_metadata m
     WHERE m.tenant_id = p_tenant AND m.consumer_group = p_group AND m.queue_id = p_queue_id
       AND m.partition_name = '' AND m.namespace = '' AND m.task = '';
    IF FOUND THEN
        RETURN v_ts;
    END IF;
    -- the queue row first (KEY SHARE, what the insert's FK check takes anyway): a queue deleted since the caller
    -- resolved it answers NULL (nothing to pop) instead of a foreign-key error
    PERFORM 1 FROM queen.queues q WHERE q.id = p_queue_id FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    v_ts := CASE WHEN p_from IS NOT NULL THEN p_from
                 WHEN p_mode = 'new' THEN now()
                 ELSE 'epoch'::timestamptz END;
    INSERT INTO queen.consumer_groups_metadata (tenant_id, consumer_group, queue_id, subscription_mode,
                                                subscription_timestamp)
    VALUES (p_tenant, p_group, p_queue_id,
            CASE WHEN p_from IS NOT NULL THEN 'timestamp' WHEN p_mode = 'new' THEN 'new' ELSE 'all' END, v_ts)
    ON CONFLICT DO NOTHING;
    -- a concurrent first contact may have won: its row is the truth
    SELECT m.subscription_timestamp INTO v_ts FROM queen.consumer_groups_metadata m
     WHERE m.tenant_id = p_tenant AND m.consumer_group = p_group AND m.queue_id = p_queue_id
       AND m.partition_name = '' AND m.namespace = '' AND m.task = '';
    RETURN v_ts;
END $$;

-- Claims the next batch of one partition for one group and leases it (or commits it at once with auto-ack).
-- Returns the segments to slice: frames [start_idx, start_idx + take) of each. Nothing is returned when the
-- partition has nothing visible or the group's lease on it is held (one lease per (partition, group)).
-- Claim-first: the cursor row is locked FOR UPDATE SKIP LOCKED; it is only inserted when missing, under a
-- transaction advisory lock (an unconditional insert per pop caused deadlock/livelock storms in the reference).
DROP FUNCTION IF EXISTS queen.log_pop_claim_v1(UUID, UUID, UUID, TEXT, INT, INT, TEXT, BOOLEAN, TEXT, TIMESTAMPTZ,
                                               INT, INT);
CREATE FUNCTION queen.log_pop_claim_v1(p_tenant UUID, p_queue_id UUID, p_pid UUID, p_group TEXT, p_budget INT,
                                       p_lease_seconds INT, p_worker TEXT, p_auto_ack BOOLEAN, p_sub_mode TEXT,
                                       p_sub_from TIMESTAMPTZ, p_delayed INT, p_window_buffer INT)
RETURNS TABLE (base_offset BIGINT, start_idx INT, take INT, created_at TIMESTAMPTZ, blob BYTEA)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_now       TIMESTAMPTZ := clock_timestamp();
    v_committed BIGINT;
    v_attempt_off BIGINT;
    v_last      BIGINT;
    v_log_start BIGINT;
    v_seed      BIGINT;
    v_wanted    BIGINT;
    v_visible   TIMESTAMPTZ;
    v_remaining INT := p_budget;
    v_last_taken BIGINT := NULL;
    v_taken     INT := 0;
    v_any       BOOLEAN;
    s           RECORD;
    v_take      INT;
    v_start     INT;
    v_sub       TIMESTAMPTZ;
BEGIN
    SELECT lp.last_offset, lp.log_start INTO v_last, v_log_start FROM queen.log_partitions lp WHERE lp.id = p_pid;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    -- window buffer: a partition is poppable only once its newest segment is old enough (bursts accumulate)
    IF p_window_buffer > 0 AND EXISTS (
        SELECT 1 FROM (SELECT s2.created_at FROM queen.log_segments s2 WHERE s2.partition_id = p_pid
                        ORDER BY s2.base_offset DESC LIMIT 1) newest
         WHERE newest.created_at > v_now - make_interval(secs => p_window_buffer)) THEN
        RETURN;
    END IF;

    -- "committed < v_last": a cursor with nothing pending is not locked at all (FOR UPDATE only locks the rows
    -- that pass the WHERE). A row lock gives the transaction an id and makes its commit flush WAL, so an empty
    -- pop would otherwise cost an fsync; it now falls into the EXISTS below and leaves read-only.
    SELECT c.committed, c.attempt_offset INTO v_committed, v_attempt_off FROM queen.log_consumers c
     WHERE c.partition_id = p_pid AND c.consumer_group = p_group
       AND (c.batch_end IS NULL OR c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
       AND c.committed < v_last
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM queen.log_consumers c WHERE c.partition_id = p_pid AND c.consumer_group = p_group) THEN
            RETURN;  -- leased by someone else, being claimed right now, or nothing pending
        END IF;
        IF NOT pg_try_advisory_xact_lock(hashtextextended(p_pid::text || '/' || p_group, 42)) THEN
            RETURN;
        END IF;
        IF p_group = '__QUEUE_MODE__' THEN
            v_seed := GREATEST(v_log_start - 1, -1);   -- queue mode always reads everything that is live
        ELSE
            v_sub := queen.log_subscription_v1(p_tenant, p_queue_id, p_group, p_sub_mode, p_sub_from);
            IF v_sub IS NULL THEN
                RETURN;  -- the queue was deleted meanwhile
            END IF;
            v_seed := GREATEST(queen.log_seed_offset_v1(p_pid, v_sub), v_log_start - 1);
        END IF;
        -- the partition row (KEY SHARE, as the insert's FK check would) after the queue row: one deleted meanwhile
        -- answers nothing instead of a foreign-key error
        PERFORM 1 FROM queen.log_partitions lp WHERE lp.id = p_pid FOR KEY SHARE;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        -- a group's start point must survive a crash: this transaction commits durably (see log_pop_lease_commit_v1)
        PERFORM set_config('queen.pop_durable', 'on', true);
        INSERT INTO queen.log_consumers (partition_id, consumer_group, committed)
        VALUES (p_pid, p_group, v_seed) ON CONFLICT DO NOTHING;
        SELECT c.committed, c.attempt_offset INTO v_committed, v_attempt_off FROM queen.log_consumers c
         WHERE c.partition_id = p_pid AND c.consumer_group = p_group
           AND (c.batch_end IS NULL OR c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)
           FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
            RETURN;
        END IF;
    END IF;

    IF v_last <= v_committed THEN
        RETURN;  -- nothing pending (cheap exit before touching segments)
    END IF;
    v_wanted := v_committed + 1;
    v_visible := CASE WHEN p_delayed > 0 THEN v_now - make_interval(secs => p_delayed) ELSE 'infinity' END;

    -- head probe: the segment covering v_wanted (one backward step on the primary key)
    SELECT s2.base_offset, s2.end_offset, s2.created_at, s2.blob INTO s FROM queen.log_segments s2
     WHERE s2.partition_id = p_pid AND s2.base_offset <= v_wanted ORDER BY s2.base_offset DESC LIMIT 1;
    IF FOUND AND s.end_offset >= v_wanted AND s.created_at <= v_visible THEN
        v_start := (v_wanted - s.base_offset)::int;
        v_take := LEAST(s.end_offset - v_wanted + 1, v_remaining)::int;
        base_offset := s.base_offset; start_idx := v_start; take := v_take; created_at := s.created_at;
        blob := s.blob;
        RETURN NEXT;
        v_remaining := v_remaining - v_take;
        v_last_taken := v_wanted + v_take - 1;
        v_taken := v_take;
    ELSIF FOUND AND s.end_offset >= v_wanted THEN
        v_remaining := 0;  -- the covering segment is still delayed: nothing later is visible either
    END IF;

    -- forward scan; a retention gap simply starts the batch at the next live base (offsets are not dense)
    IF v_remaining > 0 THEN
        FOR s IN SELECT s2.base_offset, s2.end_offset, s2.created_at, s2.blob FROM queen.log_segments s2
                  WHERE s2.partition_id = p_pid AND s2.base_offset > v_wanted
                  ORDER BY s2.base_offset
        LOOP
            EXIT WHEN s.created_at > v_visible;   -- created_at is monotone: the rest is delayed too
            v_take := LEAST(s.end_offset - s.base_offset + 1, v_remaining)::int;
            base_offset := s.base_offset; start_idx := 0; take := v_take; created_at := s.created_at;
            blob := s.blob;
            RETURN NEXT;
            v_remaining := v_remaining - v_take;
            v_last_taken := s.base_offset + v_take - 1;
            v_taken := v_taken + v_take;
            EXIT WHEN v_remaining <= 0;
        END LOOP;
    END IF;

    IF v_last_taken IS NULL THEN
        -- empty-partition seal: everything up to last_offset was deleted; move the cursor past the hole
        SELECT EXISTS (SELECT 1 FROM queen.log_segments s2 WHERE s2.partition_id = p_pid) INTO v_any;
        IF NOT v_any AND v_last > v_committed THEN
            PERFORM set_config('queen.pop_durable', 'on', true);
            UPDATE queen.log_consumers c SET committed = v_last
             WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
        END IF;
        RETURN;
    END IF;

    IF p_auto_ack THEN
        UPDATE queen.log_consumers c
           SET committed = v_last_taken, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
               total_consumed = c.total_consumed + v_taken, lease_acquired_at = v_now
         WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
    ELSE
        -- attempt_count is telemetry: a redelivery of the same start offset counts up, it never spends the
        -- retry budget (batch_retry_count), which only explicit failures consume
        UPDATE queen.log_consumers c
           SET batch_end = v_last_taken, worker_id = p_worker,
               lease_expires_at = v_now + make_interval(secs => p_lease_seconds), lease_acquired_at = v_now,
               attempt_count = CASE WHEN v_attempt_off = v_wanted THEN c.attempt_count + 1 ELSE 1 END,
               attempt_offset = v_wanted
         WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
    END IF;
END $$;

-- The end of a pop's claims (log_pop_partition_v1, log_pop_queue_v1). A transaction that wrote nothing but leases
-- (p_async, no auto-ack, no cursor seeded or moved: log_pop_claim_v1 marks those with queen.pop_durable) commits
-- without waiting for its WAL to reach disk (synchronous_commit off, for this transaction only). A lease lost to a
-- crash of PostgreSQL before that flush costs what an expired lease costs: its messages are delivered again, and
-- an ack under it finds no lease. Nothing else is lost: an async commit is visible at once, and any later durable
-- commit (the ack that ends the lease) flushes it. A delivered message then waits for one flush (its push's)
-- instead of two in sequence. p_async false: the caller's transaction may hold other writes.
CREATE OR REPLACE FUNCTION queen.log_pop_lease_commit_v1(p_async BOOLEAN, p_auto_ack BOOLEAN)
RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    IF p_async AND NOT p_auto_ack AND current_setting('queen.pop_durable', true) IS DISTINCT FROM 'on' THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
END $$;

-- A row of a pop's answer (log_pop_partition_v1, log_pop_queue_v1): the span claimed in one packed segment of
-- one partition.
DO $$
BEGIN
    CREATE TYPE queen.log_pop_row AS (partition_id UUID, partition_name TEXT, base_offset BIGINT, start_idx INT,
                                      take INT, created_at TIMESTAMPTZ, blob BYTEA);
EXCEPTION WHEN duplicate_object THEN
    NULL;
END $$;

-- Pop from one named partition. Resolves names and queue config in one read, then claims.
DROP FUNCTION IF EXISTS queen.log_pop_partition_v1(UUID, TEXT, TEXT, TEXT, INT, TEXT, BOOLEAN, TEXT, TIMESTAMPTZ);
DROP FUNCTION IF EXISTS queen.log_pop_partition_v1(UUID, TEXT, TEXT, TEXT, INT, TEXT, BOOLEAN, TEXT, TIMESTAMPTZ,
                                                   BOOLEAN);
CREATE FUNCTION queen.log_pop_partition_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT, p_group TEXT,
                                           p_budget INT, p_worker TEXT, p_auto_ack BOOLEAN, p_sub_mode TEXT,
                                           p_sub_from TIMESTAMPTZ, p_async BOOLEAN DEFAULT false)
RETURNS SETOF queen.log_pop_row
LANGUAGE plpgsql AS $$
DECLARE
    q RECORD;
    v_pid UUID;
BEGIN
    -- queue config and partition id in one read (per-statement setup costs PostgreSQL more than the lookups)
    SELECT qq.id, qq.lease_time, qq.delayed_processing, qq.window_buffer, lp.id AS pid INTO q
      FROM queen.queues qq LEFT JOIN queen.log_partitions lp ON lp.queue_id = qq.id AND lp.name = p_partition
     WHERE qq.tenant_id = p_tenant AND qq.name = p_queue;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_pid := q.pid;
    IF v_pid IS NULL THEN
        IF p_group <> '__QUEUE_MODE__' THEN
            -- an early subscription still records its start point, so 'new' means "from now"
            PERFORM queen.log_subscription_v1(p_tenant, q.id, p_group, p_sub_mode, p_sub_from);
        END IF;
        RETURN;
    END IF;
    RETURN QUERY SELECT v_pid, p_partition, c.base_offset, c.start_idx, c.take, c.created_at, c.blob
                   FROM queen.log_pop_claim_v1(p_tenant, q.id, v_pid, p_group, p_budget,
                                               CASE WHEN COALESCE(q.lease_time, 0) > 0 THEN q.lease_time ELSE 60 END,
                                               p_worker, p_auto_ack, p_sub_mode, p_sub_from,
                                               COALESCE(q.delayed_processing, 0), COALESCE(q.window_buffer, 0)) c;
    PERFORM queen.log_pop_lease_commit_v1(p_async, p_auto_ack);
END $$;

-- Pop from any partition of a queue with pending work. Candidates come from a range scan of
-- idx_log_partitions_queue_write above p_floor (the broker's "nothing was pending before this" watermark,
-- minus slack for the 1 s quantization of last_write_at), in random order for fairness; each is claimed with
-- the remaining budget until the budget or p_max_partitions is used up. All claims share one lease id.
DROP FUNCTION IF EXISTS queen.log_pop_queue_v1(UUID, TEXT, TEXT, INT, TEXT, BOOLEAN, TEXT, TIMESTAMPTZ, INT,
                                               TIMESTAMPTZ);
DROP FUNCTION IF EXISTS queen.log_pop_queue_v1(UUID, TEXT, TEXT, INT, TEXT, BOOLEAN, TEXT, TIMESTAMPTZ, INT,
                                               TIMESTAMPTZ, BOOLEAN);
CREATE FUNCTION queen.log_pop_queue_v1(p_tenant UUID, p_queue TEXT, p_group TEXT, p_budget INT, p_worker TEXT,
                                       p_auto_ack BOOLEAN, p_sub_mode TEXT, p_sub_from TIMESTAMPTZ,
                                       p_max_partitions INT, p_floor TIMESTAMPTZ, p_async BOOLEAN DEFAULT false)
RETURNS SETOF queen.log_pop_row
LANGUAGE plpgsql AS $$
DECLARE
    q RECORD;
    cand RECORD;
    v_remaining INT := p_budget;
    v_parts INT := 0;
    v_got INT;
    r RECORD;
    v_cap INT := LEAST(512, GREATEST(64, p_max_partitions * 4));
    v_now TIMESTAMPTZ := clock_timestamp();
BEGIN
    SELECT qq.id, qq.lease_time, qq.delayed_processing, qq.window_buffer INTO q FROM queen.queues qq
     WHERE qq.tenant_id = p_tenant AND qq.name = p_queue;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    FOR cand IN
        SELECT lp.id, lp.name FROM queen.log_partitions lp
          LEFT JOIN queen.log_consumers c ON c.partition_id = lp.id AND c.consumer_group = p_group
         WHERE lp.queue_id = q.id AND lp.last_write_at >= p_floor
           AND (c.partition_id IS NULL OR (lp.last_offset > c.committed
                AND (c.batch_end IS NULL OR c.lease_expires_at IS NULL OR c.lease_expires_at <= v_now)))
         -- first contacts first, in ascending partition id: each inserts a cursor row whose FK check
         -- key-share-locks its partition row until commit, so those locks must be taken in the global order and
         -- before any existing cursor row is claimed (queue delete locks partitions, then cursors); the rest in
         -- random order for fairness (claims of existing cursors never wait: SKIP LOCKED)
         ORDER BY c.partition_id IS NOT NULL, CASE WHEN c.partition_id IS NULL THEN lp.id END, random()
         LIMIT v_cap
    LOOP
        v_got := 0;
        FOR r IN SELECT * FROM queen.log_pop_claim_v1(p_tenant, q.id, cand.id, p_group, v_remaining,
                                   CASE WHEN COALESCE(q.lease_time, 0) > 0 THEN q.lease_time ELSE 60 END,
                                   p_worker, p_auto_ack, p_sub_mode, p_sub_from,
                                   COALESCE(q.delayed_processing, 0), COALESCE(q.window_buffer, 0))
        LOOP
            RETURN NEXT ROW(cand.id, cand.name, r.base_offset, r.start_idx, r.take, r.created_at,
                            r.blob)::queen.log_pop_row;
            v_got := v_got + r.take;
        END LOOP;
        IF v_got > 0 THEN
            v_remaining := v_remaining - v_got;
            v_parts := v_parts + 1;
            EXIT WHEN v_remaining <= 0 OR v_parts >= p_max_partitions;
        END IF;
    END LOOP;
    PERFORM queen.log_pop_lease_commit_v1(p_async, p_auto_ack);
END $$;

-- The read-only functions below that pops call per wake-up are plpgsql, not sql: PostgreSQL (before 18) plans
-- the statement of a SQL function that it cannot inline at every call, plpgsql keeps its plan for the session
-- (log_pop_next_due_v1 over 20 partitions: 0.72 -> 0.10 ms per call, pgbench -M prepared, 2026-12-02).

-- Whether any partition of a queue has work pending for a group (ignores leases): lets a wildcard pop tell
-- "nothing pending anywhere" (move its scan floor) from "pending but leased" (keep it).
CREATE OR REPLACE FUNCTION queen.log_queue_has_pending_v1(p_tenant UUID, p_queue TEXT, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT EXISTS (
            SELECT 1 FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id
              LEFT JOIN queen.log_consumers c ON c.partition_id = lp.id AND c.consumer_group = p_group
             WHERE q.tenant_id = p_tenant AND q.name = p_queue
               AND lp.last_offset > COALESCE(c.committed, GREATEST(lp.log_start - 1, -1))));
END $$;

-- Messages a claim by p_group could take now from one partition (p_partition) or the whole queue (NULL):
-- pending spans of cursors that are not leased. Read-only, no locks; the minPopWaitTime hold polls it. A group's
-- first contact counts from log_start (its real start may be later, so this can over-count, which only ends a
-- hold early).
CREATE OR REPLACE FUNCTION queen.log_pop_fill_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT, p_group TEXT)
RETURNS BIGINT
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT COALESCE(sum(lp.last_offset - COALESCE(c.committed, GREATEST(lp.log_start - 1, -1))), 0)::bigint
          FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id
          LEFT JOIN queen.log_consumers c ON c.partition_id = lp.id AND c.consumer_group = p_group
         WHERE q.tenant_id = p_tenant AND q.name = p_queue
           AND (p_partition IS NULL OR lp.name = p_partition)
           AND lp.last_offset > COALESCE(c.committed, GREATEST(lp.log_start - 1, -1))
           AND (c.batch_end IS NULL OR c.lease_expires_at IS NULL OR c.lease_expires_at <= now()));
END $$;

-- When a parked pop that just found nothing should try again on its own, in milliseconds from now (NULL: only a
-- write to the queue can give it anything). Without it a parked pop re-claimed on a timer, about one transaction per
-- second each on an empty queue. Per pending partition of the matching queues: a live lease's expiry; pending and
-- not leased (delayed, window-buffered, or being claimed right now) one second from now. Read-only, no locks.
-- Events that free work sooner (a push, an ack or release that ends a lease, a seek) wake parked pops directly.
CREATE OR REPLACE FUNCTION queen.log_pop_next_due_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                     p_namespace TEXT, p_task TEXT, p_group TEXT)
RETURNS DOUBLE PRECISION
LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- NULL when no row matches (GREATEST would turn that into 0; the caller clamps a negative value)
    RETURN (
        SELECT (EXTRACT(EPOCH FROM (min(CASE WHEN c.batch_end IS NOT NULL AND c.lease_expires_at > now()
                                             THEN c.lease_expires_at ELSE now() + interval '1 second' END)
                                    - now())) * 1000)::double precision
          FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id
          LEFT JOIN queen.log_consumers c ON c.partition_id = lp.id AND c.consumer_group = p_group
         WHERE q.tenant_id = p_tenant AND (p_queue IS NULL OR q.name = p_queue)
           AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task)
           AND (p_partition IS NULL OR lp.name = p_partition)
           AND lp.last_offset > COALESCE(c.committed, GREATEST(lp.log_start - 1, -1)));
END $$;

-- Queues matching a namespace and/or task, highest priority first (GET /api/v1/pop discovery).
CREATE OR REPLACE FUNCTION queen.log_queues_by_namespace_v1(p_tenant UUID, p_namespace TEXT, p_task TEXT)
RETURNS TABLE (name TEXT)
LANGUAGE sql STABLE AS $$
    SELECT q.name::text FROM queen.queues q
     WHERE q.tenant_id = p_tenant AND (p_namespace IS NULL OR q.namespace = p_namespace)
       AND (p_task IS NULL OR q.task = p_task)
     ORDER BY q.priority DESC NULLS LAST, q.name
$$;

-- Other brokers listening for push announcements on this database: their LISTEN connections carry
-- application_name 'queen-listen' (PopWaiters sets it); p_self is the caller's own listening backend. A broker
-- that finds none skips its NOTIFY rounds (nobody would hear them). application_name, datname and pid of every
-- session are visible to any role in pg_stat_activity.
CREATE OR REPLACE FUNCTION queen.push_listeners_v1(p_self INT)
RETURNS INT
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT count(*)::int FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'queen-listen' AND pid <> p_self);
END $$;

-- Gives back the tail of a claim that the pop answer had no room for (its byte budget): the lease, or with
-- autoAck (p_worker '') the cursor, then ends at p_keep_last instead of p_claimed_last; a lease that keeps nothing
-- is released. Only while the claim is exactly as the pop left it (its lease; with autoAck the cursor not moved
-- since): false otherwise, and the caller then delivers the whole claim.
CREATE OR REPLACE FUNCTION queen.log_pop_give_back_v1(p_pid UUID, p_group TEXT, p_worker TEXT, p_claimed_last BIGINT,
                                                      p_keep_last BIGINT, p_returned INT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
BEGIN
    IF p_worker = '' THEN
        UPDATE queen.log_consumers c
           SET committed = p_keep_last, total_consumed = GREATEST(c.total_consumed - p_returned, 0)
         WHERE c.partition_id = p_pid AND c.consumer_group = p_group AND c.committed = p_claimed_last
           AND c.batch_end IS NULL;
    ELSE
        UPDATE queen.log_consumers c
           SET batch_end = CASE WHEN p_keep_last > c.committed THEN p_keep_last END,
               worker_id = CASE WHEN p_keep_last > c.committed THEN c.worker_id END,
               lease_expires_at = CASE WHEN p_keep_last > c.committed THEN c.lease_expires_at END
         WHERE c.partition_id = p_pid AND c.consumer_group = p_group AND c.worker_id = p_worker
           AND c.batch_end = p_claimed_last;
    END IF;
    RETURN FOUND;
END $$;
