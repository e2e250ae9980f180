-- 005_log_push.sql: the write path. One call commits one bundle of segments (one per partition, from the
-- broker's fusion layer) in ONE transaction: one round trip, one fsync.

-- Commits one segment into a partition whose row the caller has ALREADY LOCKED (FOR UPDATE) and read in that same
-- statement: p_last / p_tstart are the row's last_offset and txns_start as read under the lock (one statement
-- instead of a lock pass plus a re-read; PostgreSQL spends more on per-statement executor setup than on the
-- rows). Order of work inside the lock: stamp created_at (after the lock, so created_at is monotone per partition
-- in commit order), probe dedup, then bump the allocator and insert segment + sidecar in ONE statement. Nothing is
-- written for a segment with a duplicate: the broker drops the duplicates, repacks the survivors and retries (no
-- savepoints).
--   p_verified: the broker vouches it already checked the hashes against every offset <= p_verified (-1 = no
--   vouching: probe the whole window). p_assumed_window: the window the broker's vouching was built for; if the
--   queue's window has grown since, the vouching does not cover it and is ignored.
DROP FUNCTION IF EXISTS queen.log_push_one_v1(UUID, INT, BYTEA, BIGINT, BYTEA, INT);
DROP FUNCTION IF EXISTS queen.log_push_one_v1(UUID, INT, BYTEA, BIGINT, INT, BYTEA, INT);
DROP FUNCTION IF EXISTS queen.log_push_one_v1(UUID, BIGINT, BIGINT, INT, BYTEA, BIGINT, INT, BYTEA, INT);
CREATE FUNCTION queen.log_push_one_v1(p_pid UUID, p_last BIGINT, p_tstart BIGINT, p_count INT, p_hashes BYTEA,
                                      p_verified BIGINT, p_assumed_window INT, p_blob BYTEA, p_window INT,
                                      OUT status TEXT, OUT base_offset BIGINT, OUT created_at TIMESTAMPTZ,
                                      OUT dup_idx INT[], OUT dup_off BIGINT[])
LANGUAGE plpgsql AS $$
DECLARE
    v_now   TIMESTAMPTZ := clock_timestamp();
    v_from  BIGINT;
    v_scan  BIGINT;
BEGIN
    IF p_count < 1 OR octet_length(p_hashes) <> 16 * p_count THEN
        RAISE EXCEPTION 'QPUSH bad segment: % hash bytes for % frames', octet_length(p_hashes), p_count;
    END IF;

    IF p_window > 0 THEN
        v_from := CASE WHEN p_assumed_window >= p_window THEN GREATEST(p_verified, p_tstart - 1)
                       ELSE p_tstart - 1 END;
        IF p_last > v_from THEN
            -- start the PK range scan at the sidecar row covering v_from + 1 (one backward step), not at 0
            SELECT t.base_offset INTO v_scan FROM queen.log_txns t
             WHERE t.partition_id = p_pid AND t.base_offset <= v_from + 1
             ORDER BY t.base_offset DESC LIMIT 1;
            SELECT array_agg(m.i ORDER BY m.i), array_agg(m.off ORDER BY m.i) INTO dup_idx, dup_off
              FROM (SELECT inc.idx AS i, min(t.base_offset + old.idx) AS off
                      FROM queen.log_unnest_hashes(p_hashes) inc
                      JOIN (queen.log_txns t CROSS JOIN LATERAL queen.log_unnest_hashes(t.hashes) old)
                        ON old.h = inc.h
                     WHERE t.partition_id = p_pid
                       AND t.base_offset >= COALESCE(v_scan, v_from + 1)
                       AND t.end_offset > v_from
                       AND t.created_at >= v_now - make_interval(secs => p_window)
                       AND t.base_offset + old.idx > v_from
                     GROUP BY inc.idx) m;
            IF dup_idx IS NOT NULL THEN
                status := 'duplicate';
                RETURN;
            END IF;
        END IF;
    END IF;

    -- The allocator, the segment and its sidecar row in one statement (the row lock is already held, so
    -- p_last + 1 is the base). last_write_at is indexed, so it is only rewritten when more than 1 s old (keeps
    -- the UPDATE HOT); the work-list timestamps are only filled on the empty -> non-empty transition (COALESCE).
    base_offset := p_last + 1;
    WITH alloc AS (
        UPDATE queen.log_partitions lp
           SET last_offset    = lp.last_offset + p_count,
               oldest_live_at = COALESCE(lp.oldest_live_at, v_now),
               oldest_txn_at  = COALESCE(lp.oldest_txn_at, v_now),
               last_write_at  = CASE WHEN lp.last_write_at < v_now - interval '1 second' THEN v_now
                                     ELSE lp.last_write_at END
         WHERE lp.id = p_pid),
    seg AS (
        INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)
        VALUES (p_pid, p_last + 1, p_last + p_count, v_now, p_blob))
    INSERT INTO queen.log_txns (partition_id, base_offset, end_offset, created_at, hashes)
    VALUES (p_pid, p_last + 1, p_last + p_count, v_now, p_hashes);
    status := 'queued';
    created_at := v_now;
END $$;

-- Commits a bundle: provisions missing queues/partitions, locks every target partition row in ascending id
-- (the global lock order), then pushes each segment. Verdicts come back by input ordinal.
DROP FUNCTION IF EXISTS queen.log_push_multi_v1(UUID[], TEXT[], TEXT[], INT[], BYTEA[], BIGINT[], BYTEA[]);
DROP FUNCTION IF EXISTS queen.log_push_multi_v1(UUID[], TEXT[], TEXT[], INT[], BYTEA[], BIGINT[], INT[], BYTEA[]);
DROP FUNCTION IF EXISTS queen.log_push_multi_v1(UUID[], TEXT[], TEXT[], INT[], BYTEA[], BIGINT[], INT[], UUID[],
                                                BYTEA[]);
-- p_verified_pids: the partition each vouching was built for. A partition deleted and created again under the
-- same name (queue delete, partition cleanup) has a new id, and an old vouching must not narrow its probe.
CREATE FUNCTION queen.log_push_multi_v1(p_tenants UUID[], p_queues TEXT[], p_partitions TEXT[], p_counts INT[],
                                        p_hashes BYTEA[], p_verified BIGINT[], p_assumed_windows INT[],
                                        p_verified_pids UUID[], p_blobs BYTEA[])
RETURNS TABLE (ord INT, partition_id UUID, status TEXT, base_offset BIGINT, created_at TIMESTAMPTZ,
               dup_idx INT[], dup_off BIGINT[], dedup_window INT)
LANGUAGE plpgsql AS $$
DECLARE
    n   INT := cardinality(p_queues);
    r   RECORD;
    v   RECORD;
    v_pid UUID;
    v_win INT;
    v_last BIGINT;
    v_tstart BIGINT;
    v_pids UUID[] := '{}';
    v_wins INT[] := '{}';
    v_provisioned BOOLEAN := FALSE;
BEGIN
    IF cardinality(p_tenants) <> n OR cardinality(p_partitions) <> n OR cardinality(p_counts) <> n
       OR cardinality(p_hashes) <> n OR cardinality(p_verified) <> n OR cardinality(p_assumed_windows) <> n
       OR cardinality(p_verified_pids) <> n
       OR cardinality(p_blobs) <> n THEN
        RAISE EXCEPTION 'QMULTI misaligned arrays';
    END IF;

    IF n = 1 THEN
        -- One target (the common bundle): resolve, lock and read the allocator in one statement; a single row
        -- lock has no order to respect.
        SELECT lp.id, q.dedup_window_seconds, lp.last_offset, lp.txns_start INTO v_pid, v_win, v_last, v_tstart
          FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partitions[1]
         WHERE q.tenant_id = p_tenants[1] AND q.name = p_queues[1]
           FOR UPDATE OF lp;
        IF NOT FOUND THEN
            PERFORM queen.provision_partitions_v1(p_tenants, p_queues, p_partitions);
            SELECT lp.id, q.dedup_window_seconds, lp.last_offset, lp.txns_start
              INTO STRICT v_pid, v_win, v_last, v_tstart
              FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partitions[1]
             WHERE q.tenant_id = p_tenants[1] AND q.name = p_queues[1]
               FOR UPDATE OF lp;
        END IF;
        -- an assignment, not SELECT * FROM: evaluated as a simple expression, without an executor of its own
        v := queen.log_push_one_v1(v_pid, v_last, v_tstart, p_counts[1], p_hashes[1],
                                   CASE WHEN p_verified_pids[1] = v_pid THEN p_verified[1] ELSE -1 END,
                                   p_assumed_windows[1], p_blobs[1], v_win);
        ord := 1; partition_id := v_pid; status := v.status; base_offset := v.base_offset;
        created_at := v.created_at; dup_idx := v.dup_idx; dup_off := v.dup_off; dedup_window := v_win;
        RETURN NEXT;
        RETURN;
    END IF;

    -- Several targets are resolved first and locked afterwards, in id order: hold every queue's membership lock
    -- (004_queue.sql) from before the first lookup, so no queue delete or partition cleanup can remove a resolved
    -- partition before it is locked below (one statement per bundle; the single-target path above resolves and
    -- locks in one statement, and a partition deleted under it is simply not found there).
    PERFORM queen.lock_queues_shared_v1(p_tenants, p_queues);

    -- Resolve every target by its unique keys, one equality lookup each (queues (tenant_id, name), then
    -- log_partitions (queue_id, name)). Deliberately not one join of unnest() against the tables: right after a
    -- queue's partitions are deleted and recreated (or on a fresh table) the statistics say "no rows", and the
    -- planner then scans log_partitions once per input: measured 17 ms and 6,800 buffer hits per bundle with
    -- 200 partitions. A lookup by a unique key is an index probe whatever the statistics say.
    FOR i IN 1 .. n LOOP
        SELECT lp.id, q.dedup_window_seconds INTO v_pid, v_win
          FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partitions[i]
         WHERE q.tenant_id = p_tenants[i] AND q.name = p_queues[i];
        IF NOT FOUND THEN
            IF NOT v_provisioned THEN
                PERFORM queen.provision_partitions_v1(p_tenants, p_queues, p_partitions);
                v_provisioned := TRUE;
            END IF;
            SELECT lp.id, q.dedup_window_seconds INTO STRICT v_pid, v_win
              FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partitions[i]
             WHERE q.tenant_id = p_tenants[i] AND q.name = p_queues[i];
        END IF;
        v_pids[i] := v_pid;
        v_wins[i] := v_win;
    END LOOP;

    -- Lock and push in ascending partition id, the global lock order (deadlock freedom): each row is locked and
    -- read by one primary-key probe right before its segment is pushed, so every lock is still taken in order.
    FOR r IN SELECT x.pid, x.o::int AS o FROM unnest(v_pids) WITH ORDINALITY AS x(pid, o) ORDER BY x.pid, x.o LOOP
        SELECT lp.last_offset, lp.txns_start INTO v_last, v_tstart
          FROM queen.log_partitions lp WHERE lp.id = r.pid FOR UPDATE;
        IF NOT FOUND THEN
            -- cannot happen: the membership locks held since before the lookup keep queue deletes and partition
            -- cleanup out
            RAISE EXCEPTION 'QPUSH partition % was deleted during the push', r.pid;
        END IF;
        v := queen.log_push_one_v1(r.pid, v_last, v_tstart, p_counts[r.o], p_hashes[r.o],
                                   CASE WHEN p_verified_pids[r.o] = r.pid THEN p_verified[r.o] ELSE -1 END,
                                   p_assumed_windows[r.o], p_blobs[r.o], v_wins[r.o]);
        ord := r.o; partition_id := r.pid; status := v.status; base_offset := v.base_offset;
        created_at := v.created_at; dup_idx := v.dup_idx; dup_off := v.dup_off; dedup_window := v_wins[r.o];
        RETURN NEXT;
    END LOOP;
    -- No pg_notify here: a transaction that queues a notification takes PostgreSQL's database-wide notify
    -- lock at commit and holds it through its WAL flush, which serializes every push commit. The broker
    -- announces committed queues on channel queen_push after the commit instead (PopWaiters.publish).
END $$;

-- The segment covering an offset (for resolving a duplicate's original message id, browse, DLQ filing).
CREATE OR REPLACE FUNCTION queen.log_segment_at_v1(p_pid UUID, p_off BIGINT)
RETURNS TABLE (base_offset BIGINT, end_offset BIGINT, created_at TIMESTAMPTZ, blob BYTEA)
LANGUAGE sql STABLE AS $$
    SELECT s.base_offset, s.end_offset, s.created_at, s.blob FROM queen.log_segments s
     WHERE s.partition_id = p_pid AND s.base_offset <= p_off
     ORDER BY s.base_offset DESC LIMIT 1
$$;

-- Sidecar rows of a partition in (p_after, p_before), no older than the dedup window: what the broker's dedup
-- index needs to (re)build its coverage (cold start, or a gap written by another broker).
CREATE OR REPLACE FUNCTION queen.log_txns_range_v1(p_pid UUID, p_after BIGINT, p_before BIGINT, p_window INT)
RETURNS TABLE (base_offset BIGINT, end_offset BIGINT, created_at TIMESTAMPTZ, hashes BYTEA)
LANGUAGE sql STABLE AS $$
    SELECT t.base_offset, t.end_offset, t.created_at, t.hashes FROM queen.log_txns t
     WHERE t.partition_id = p_pid AND t.base_offset > p_after AND t.base_offset < p_before
       AND t.created_at >= clock_timestamp() - make_interval(secs => p_window)
     ORDER BY t.base_offset
$$;
