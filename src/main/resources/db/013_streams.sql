-- 013_streams.sql: stateful stream processing (/streams/v1/*). Registered queries and their keyed state live in
-- a schema of their own (queen_streams), so backups and grants can target them separately from the log.
--
-- State is keyed by (query, source partition, key). A partition is leased to one consumer of a group at a time,
-- so one worker writes a (query, partition) shard; a cycle also takes a transaction-scoped advisory lock on that
-- shard so ack-less cycles (idle window flushes) serialize with ack-bearing ones. Cycles of different partitions
-- share no lock.
--
-- Lifecycle of state rows:
--   * a query reset (register with reset:true) deletes the query's state;
--   * deleting a queue deletes the state of every partition it had (trigger below: the partition rows go by
--     cascade from the queue row);
--   * partition cleanup never deletes a partition that holds state (log_partition_dead_v1 vetoes it).
-- There is deliberately no foreign key from state.partition_id to log_partitions: its check would take a KEY SHARE
-- lock on the source partition row in the middle of a cycle, against the lock order (pushes hold partition rows
-- FOR UPDATE and a cycle's sink push locks its own partition rows first).

CREATE SCHEMA IF NOT EXISTS queen_streams;

CREATE TABLE IF NOT EXISTS queen_streams.queries (
    id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id    UUID NOT NULL,
    name         TEXT NOT NULL,
    source_queue TEXT NOT NULL,
    sink_queue   TEXT,
    config_hash  TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT streams_queries_tenant_name_uk UNIQUE (tenant_id, name)
);

-- key is COLLATE "C": keys compare as UTF-8 byte strings whatever the database's collation, so a key prefix is
-- one range of the primary key (state_get_v1) and the answer's order does not depend on the locale
CREATE TABLE IF NOT EXISTS queen_streams.state (
    query_id     UUID NOT NULL REFERENCES queen_streams.queries(id) ON DELETE CASCADE,
    partition_id UUID NOT NULL,
    key          TEXT COLLATE "C" NOT NULL,
    value        JSONB NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (query_id, partition_id, key)
);
-- a table created before the key was "C": equality is unchanged (deterministic collations compare bytes for
-- equality), only the primary key index is rebuilt in byte order
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
                WHERE a.attrelid = 'queen_streams.state'::regclass AND a.attname = 'key' AND c.collname <> 'C') THEN
        ALTER TABLE queen_streams.state ALTER COLUMN key TYPE TEXT COLLATE "C";
    END IF;
END $$;
-- partition deletes and the cleanup veto look state up by partition alone
CREATE INDEX IF NOT EXISTS idx_streams_state_partition ON queen_streams.state (partition_id);

-- Registers a query or checks it against its registration. Same name with another config_hash or another
-- source queue and no reset -> conflict (nothing changes). reset -> the registration takes the new shape and the
-- query's state is deleted (also when the shape is unchanged: reset means "start over").
DROP FUNCTION IF EXISTS queen_streams.register_query_v1(UUID, TEXT, TEXT, TEXT, TEXT, BOOLEAN);
CREATE FUNCTION queen_streams.register_query_v1(p_tenant UUID, p_name TEXT, p_source TEXT, p_sink TEXT,
                                                p_hash TEXT, p_reset BOOLEAN)
RETURNS TABLE (query_id UUID, fresh BOOLEAN, did_reset BOOLEAN, conflict TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_id UUID;
    v_row RECORD;
BEGIN
    INSERT INTO queen_streams.queries (tenant_id, name, source_queue, sink_queue, config_hash)
    VALUES (p_tenant, p_name, p_source, p_sink, p_hash)
    ON CONFLICT ON CONSTRAINT streams_queries_tenant_name_uk DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
        RETURN QUERY SELECT v_id, TRUE, FALSE, NULL::text;
        RETURN;
    END IF;
    SELECT q.id, q.source_queue, q.config_hash INTO v_row FROM queen_streams.queries q
     WHERE q.tenant_id = p_tenant AND q.name = p_name FOR UPDATE;
    IF NOT p_reset THEN
        IF v_row.config_hash <> p_hash THEN
            RETURN QUERY SELECT v_row.id, FALSE, FALSE,
                format('config_hash mismatch for query %s (registered %s, got %s): pass reset:true to wipe its state',
                       p_name, v_row.config_hash, p_hash);
            RETURN;
        END IF;
        IF v_row.source_queue <> p_source THEN
            RETURN QUERY SELECT v_row.id, FALSE, FALSE,
                format('query %s reads queue %s, not %s: pass reset:true to wipe its state', p_name,
                       v_row.source_queue, p_source);
            RETURN;
        END IF;
        UPDATE queen_streams.queries q SET sink_queue = p_sink, updated_at = now()
         WHERE q.id = v_row.id AND q.sink_queue IS DISTINCT FROM p_sink;
        RETURN QUERY SELECT v_row.id, FALSE, FALSE, NULL::text;
        RETURN;
    END IF;
    DELETE FROM queen_streams.state s WHERE s.query_id = v_row.id;
    UPDATE queen_streams.queries q
       SET source_queue = p_source, sink_queue = p_sink, config_hash = p_hash, updated_at = now()
     WHERE q.id = v_row.id;
    RETURN QUERY SELECT v_row.id, FALSE, TRUE, NULL::text;
END $$;

-- First statement of a cycle: serializes the (query, partition) shard and checks that the partition belongs to
-- the query's source queue. problem NULL = go on.
DROP FUNCTION IF EXISTS queen_streams.cycle_begin_v1(UUID, UUID, UUID);
CREATE FUNCTION queen_streams.cycle_begin_v1(p_tenant UUID, p_query UUID, p_pid UUID)
RETURNS TABLE (problem TEXT, source_queue TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_source TEXT;
    v_pqueue TEXT;
BEGIN
    SELECT q.source_queue INTO v_source FROM queen_streams.queries q WHERE q.id = p_query AND q.tenant_id = p_tenant;
    IF NOT FOUND THEN
        RETURN QUERY SELECT format('unknown query_id %s', p_query), NULL::text;
        RETURN;
    END IF;
    SELECT qq.name INTO v_pqueue FROM queen.log_partitions lp JOIN queen.queues qq ON qq.id = lp.queue_id
     WHERE lp.id = p_pid AND qq.tenant_id = p_tenant;
    IF NOT FOUND THEN
        RETURN QUERY SELECT format('unknown partition_id %s', p_pid), v_source;
        RETURN;
    END IF;
    IF v_pqueue <> v_source THEN
        RETURN QUERY SELECT format('partition %s belongs to queue %s, not to the query''s source queue %s', p_pid,
                                   v_pqueue, v_source), v_source;
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('queen_streams:' || p_query::text || ':' || p_pid::text, 0));
    RETURN QUERY SELECT NULL::text, v_source;
END $$;

-- Applies a cycle's state ops in request order semantics: the last op on a key wins. Rows are written in key
-- order (a stable lock order among state rows). Returns the number of ops applied (every input op counts).
DROP FUNCTION IF EXISTS queen_streams.state_apply_v1(UUID, UUID, TEXT[], TEXT[], JSONB[]);
CREATE FUNCTION queen_streams.state_apply_v1(p_query UUID, p_pid UUID, p_types TEXT[], p_keys TEXT[],
                                             p_values JSONB[])
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_now TIMESTAMPTZ := now();
BEGIN
    IF cardinality(p_types) <> cardinality(p_keys) OR cardinality(p_types) <> cardinality(p_values) THEN
        RAISE EXCEPTION 'QSTREAMS misaligned arrays';
    END IF;
    WITH last AS (
        SELECT DISTINCT ON (x.k) x.k, x.t, x.v
          FROM unnest(p_types, p_keys, p_values) WITH ORDINALITY AS x(t, k, v, o)
         ORDER BY x.k, x.o DESC
    ), del AS (
        DELETE FROM queen_streams.state s USING last l
         WHERE l.t = 'delete' AND s.query_id = p_query AND s.partition_id = p_pid AND s.key = l.k
    )
    INSERT INTO queen_streams.state AS s (query_id, partition_id, key, value, updated_at)
    SELECT p_query, p_pid, l.k, l.v, v_now FROM last l WHERE l.t = 'upsert' ORDER BY l.k
    ON CONFLICT (query_id, partition_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = v_now;
    RETURN cardinality(p_types);
END $$;

-- The source ack of a completed cycle: moves the (partition, group) cursor forward by p_count delivered
-- messages (NULL = the whole leased batch), inside the leased span only, under the live lease p_lease.
-- Offsets are not dense (retention leaves gaps), so the count walks the segments that exist. One UPDATE of the
-- cursor row. p_release: release the lease (the SDK's full-batch cycle); false keeps it on the unacked tail
-- (a gate's ordered partial ack) unless nothing of the batch is left.
-- p_hash (the 16-byte hash of the ack's transactionId, NULL = unchecked) must name a message of the span being
-- acked (committed, target]: a cycle replayed under a lease it kept would otherwise ack the NEXT messages. A hash
-- found at or below the cursor answers already_committed (the first attempt committed). Checked only where the
-- hash sidecar still covers the span.
-- outcome: ok | no_cursor | invalid_lease | count_exceeds_batch | already_committed | txn_not_in_span
DROP FUNCTION IF EXISTS queen_streams.cycle_ack_v1(UUID, TEXT, TEXT, BIGINT, BOOLEAN);
DROP FUNCTION IF EXISTS queen_streams.cycle_ack_v1(UUID, TEXT, TEXT, BIGINT, BOOLEAN, BYTEA);
CREATE FUNCTION queen_streams.cycle_ack_v1(p_pid UUID, p_group TEXT, p_lease TEXT, p_count BIGINT,
                                           p_release BOOLEAN, p_hash BYTEA)
RETURNS TABLE (outcome TEXT, acked BIGINT, lease_released BOOLEAN, committed BIGINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c RECORD;
    s RECORD;
    v_target BIGINT;
    v_left BIGINT;
    v_from BIGINT;
    v_avail BIGINT;
    v_seen BIGINT := 0;
    v_release BOOLEAN;
    v_tstart BIGINT;
    v_found BIGINT;
    v_scan BIGINT;
    v_hit BOOLEAN;
BEGIN
    SELECT cc.committed, cc.batch_end, cc.worker_id, cc.lease_expires_at INTO c
      FROM queen.log_consumers cc WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'no_cursor'::text, 0::bigint, FALSE, NULL::bigint;
        RETURN;
    END IF;
    IF c.worker_id IS DISTINCT FROM p_lease OR c.batch_end IS NULL OR c.lease_expires_at IS NULL
       OR c.lease_expires_at <= clock_timestamp() THEN
        RETURN QUERY SELECT 'invalid_lease'::text, 0::bigint, FALSE, c.committed;
        RETURN;
    END IF;
    IF p_count IS NULL THEN
        v_target := c.batch_end;
        SELECT COALESCE(sum(LEAST(sg.end_offset, c.batch_end) - GREATEST(sg.base_offset, c.committed + 1) + 1), 0)
          INTO v_seen FROM queen.log_segments sg
         WHERE sg.partition_id = p_pid AND sg.end_offset > c.committed AND sg.base_offset <= c.batch_end;
    ELSE
        v_left := p_count;
        v_target := c.committed;
        FOR s IN SELECT sg.base_offset, sg.end_offset FROM queen.log_segments sg
                  WHERE sg.partition_id = p_pid AND sg.end_offset > c.committed AND sg.base_offset <= c.batch_end
                  ORDER BY sg.base_offset LOOP
            EXIT WHEN v_left <= 0;
            v_from := GREATEST(s.base_offset, c.committed + 1);
            v_avail := LEAST(s.end_offset, c.batch_end) - v_from + 1;
            IF v_left <= v_avail THEN
                v_target := v_from + v_left - 1;
                v_seen := v_seen + v_left;
                v_left := 0;
            ELSE
                v_target := LEAST(s.end_offset, c.batch_end);
                v_seen := v_seen + v_avail;
                v_left := v_left - v_avail;
            END IF;
        END LOOP;
        IF v_left > 0 THEN
            RETURN QUERY SELECT 'count_exceeds_batch'::text, v_seen, FALSE, c.committed;
            RETURN;
        END IF;
    END IF;
    IF p_hash IS NOT NULL AND v_target > c.committed THEN
        -- fast path: the SDK and the connector name the span's last message, the one at the target offset (one
        -- PK probe and a 16-byte slice, no unnesting)
        SELECT substring(t.hashes FROM (v_target - t.base_offset)::int * 16 + 1 FOR 16) = p_hash
          INTO v_hit FROM queen.log_txns t
         WHERE t.partition_id = p_pid AND t.base_offset <= v_target AND t.end_offset >= v_target
         ORDER BY t.base_offset DESC LIMIT 1;
        IF v_hit IS NOT TRUE THEN
            SELECT lp.txns_start INTO v_tstart FROM queen.log_partitions lp WHERE lp.id = p_pid;
            -- where is the named message? looked up from a little below the cursor (a replay lands just below it),
            -- starting at the sidecar row that covers that point (one backward step on the PK)
            v_from := GREATEST(v_tstart, c.committed + 1 - 10000);
            SELECT t.base_offset INTO v_scan FROM queen.log_txns t
             WHERE t.partition_id = p_pid AND t.base_offset <= v_from ORDER BY t.base_offset DESC LIMIT 1;
            SELECT max(t.base_offset + u.idx) INTO v_found
              FROM queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) u
             WHERE t.partition_id = p_pid AND t.base_offset >= COALESCE(v_scan, v_from) AND t.base_offset <= v_target
               AND u.h = p_hash AND t.base_offset + u.idx BETWEEN v_from AND v_target;
            IF v_found IS NOT NULL AND v_found <= c.committed THEN
                RETURN QUERY SELECT 'already_committed'::text, 0::bigint, FALSE, c.committed;
                RETURN;
            END IF;
            IF v_found IS NULL AND v_tstart <= c.committed + 1 THEN
                RETURN QUERY SELECT 'txn_not_in_span'::text, 0::bigint, FALSE, c.committed;
                RETURN;
            END IF;
        END IF;
    END IF;
    v_release := p_release OR v_target >= c.batch_end;
    IF v_release THEN
        UPDATE queen.log_consumers cc
           SET committed = v_target, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
               batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL,
               total_consumed = cc.total_consumed + (v_target - c.committed)
         WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
    ELSIF v_target > c.committed THEN
        UPDATE queen.log_consumers cc
           SET committed = v_target, attempt_offset = v_target + 1,
               total_consumed = cc.total_consumed + (v_target - c.committed)
         WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
    END IF;
    RETURN QUERY SELECT 'ok'::text, v_seen, v_release, v_target;
END $$;

-- An ack-less cycle (an idle window flush) holds the (partition, group) cursor row with KEY SHARE until commit:
-- it blocks only the row's deletion (a queue delete), so state written by the flush cannot outlive its
-- partition, and it never blocks pops or acks (their UPDATEs take FOR NO KEY UPDATE).
DROP FUNCTION IF EXISTS queen_streams.cycle_hold_v1(UUID, TEXT);
CREATE FUNCTION queen_streams.cycle_hold_v1(p_pid UUID, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    SELECT EXISTS (SELECT 1 FROM queen.log_consumers cc WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group
                   FOR KEY SHARE)
$$;

-- The smallest string above every string that starts with p_prefix, in UTF-8 byte order (= code point order):
-- the prefix with its last character replaced by the next code point (surrogates skipped); a trailing U+10FFFF
-- has no successor and is dropped first. NULL = no upper bound (the prefix is all U+10FFFF).
CREATE OR REPLACE FUNCTION queen_streams.key_prefix_end_v1(p_prefix TEXT)
RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v TEXT := p_prefix;
    c INT;
BEGIN
    WHILE v <> '' LOOP
        c := ascii(right(v, 1));
        v := left(v, -1);
        IF c < 1114111 THEN
            RETURN v || chr(CASE WHEN c = 55295 THEN 57344 ELSE c + 1 END);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

-- value.windowEnd is a JSON number <= p_ripe. A CASE, not an AND: SQL does not promise to test the type before
-- the cast, and a string or null windowEnd must be "not ripe", never an error.
CREATE OR REPLACE FUNCTION queen_streams.window_end_at_or_before_v1(p_value JSONB, p_ripe NUMERIC)
RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(p_value -> 'windowEnd') = 'number'
                THEN (p_value -> 'windowEnd')::numeric <= p_ripe ELSE FALSE END
$$;

-- Reads a (query, partition)'s state (API spec 5.1). Filters combine with AND; NULL (or empty) = no filter:
--   p_keys   the key is one of them (missing keys are simply absent);
--   p_prefix the key starts with it, as UTF-8 bytes: one range [prefix, key_prefix_end_v1(prefix)) of the primary
--            key, so nothing of the prefix is a pattern (no LIKE: '%', '_' and '\' are characters like any other);
--   p_ripe   value.windowEnd is a JSON number <= p_ripe (the idle flush's "windows that may close").
DROP FUNCTION IF EXISTS queen_streams.state_get_v1(UUID, UUID, UUID, TEXT[]);
CREATE OR REPLACE FUNCTION queen_streams.state_get_v1(p_tenant UUID, p_query UUID, p_pid UUID, p_keys TEXT[],
                                                      p_prefix TEXT, p_ripe NUMERIC)
RETURNS TABLE (key TEXT, value JSONB, updated_at TIMESTAMPTZ)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    v_all BOOLEAN := p_keys IS NULL OR cardinality(p_keys) = 0;
    v_end TEXT;
BEGIN
    PERFORM 1 FROM queen_streams.queries q WHERE q.id = p_query AND q.tenant_id = p_tenant;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_prefix IS NULL OR p_prefix = '' THEN
        RETURN QUERY SELECT s.key::text, s.value, s.updated_at FROM queen_streams.state s
         WHERE s.query_id = p_query AND s.partition_id = p_pid
           AND (v_all OR s.key = ANY (p_keys))
           AND (p_ripe IS NULL OR queen_streams.window_end_at_or_before_v1(s.value, p_ripe))
         ORDER BY s.key;
        RETURN;
    END IF;
    v_end := queen_streams.key_prefix_end_v1(p_prefix);
    RETURN QUERY SELECT s.key::text, s.value, s.updated_at FROM queen_streams.state s
     WHERE s.query_id = p_query AND s.partition_id = p_pid
       AND s.key >= p_prefix AND (v_end IS NULL OR s.key < v_end)
       AND (v_all OR s.key = ANY (p_keys))
       AND (p_ripe IS NULL OR queen_streams.window_end_at_or_before_v1(s.value, p_ripe))
     ORDER BY s.key;
END $$;

-- A partition's state goes with the partition (queue delete cascades partition rows; partition cleanup never
-- picks a partition holding state, see log_partition_dead_v1).
CREATE OR REPLACE FUNCTION queen_streams.partition_deleted_v1()
RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM queen_streams.state s WHERE s.partition_id = OLD.id;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS streams_state_partition_deleted ON queen.log_partitions;
CREATE TRIGGER streams_state_partition_deleted AFTER DELETE ON queen.log_partitions
    FOR EACH ROW EXECUTE FUNCTION queen_streams.partition_deleted_v1();
