-- 022_kafka_groups.sql: the committed offsets of Kafka consumer groups (io.queen.kafka.group). A Kafka group's
-- committed offset of a partition IS the Queen cursor of that (partition, group): Kafka commits "the next offset to
-- read" N, the cursor holds "the last offset consumed", so committed = N - 1 and an OffsetFetch answers committed + 1.
-- Topic = queue, Kafka partition n = the Queen partition named n. Applied at every boot, idempotently.

-- Whether a cursor row already holds exactly p_committed with no lease or retry state to drop: a commit of that
-- value writes nothing there. The one definition both ways of an OffsetCommit use (inlined: a plain expression).
CREATE OR REPLACE FUNCTION queen.kafka_cursor_holds_v1(c queen.log_consumers, p_committed BIGINT)
RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE AS $$
    SELECT c.committed = p_committed AND c.batch_end IS NULL AND c.worker_id IS NULL AND c.lease_expires_at IS NULL
           AND c.lease_acquired_at IS NULL AND c.batch_retry_count = 0 AND c.attempt_count = 0
           AND c.attempt_offset IS NULL AND NOT c.lease_conflated
$$;

-- The cursor rows one OffsetCommit names, one per partition (of two entries for one partition the later wins, as
-- two commits in that order would): the partition, the cursor value it asks for (committed = offset - 1) and whether
-- the cursor already holds exactly that, with no lease or retry state to drop (a commit there writes nothing).
-- Partitions that do not exist are left out. Read-only, no locks.
CREATE OR REPLACE FUNCTION queen.kafka_commit_targets_v1(p_tenant UUID, p_group TEXT, p_queues TEXT[],
                                                         p_partitions TEXT[], p_offsets BIGINT[])
RETURNS TABLE (pid UUID, queue_name TEXT, partition_name TEXT, next_committed BIGINT, log_start BIGINT,
               holds BOOLEAN)
LANGUAGE sql STABLE AS $$
    SELECT w.pid, w.q, w.p, w.next_committed, w.log_start,
           c.partition_id IS NOT NULL AND queen.kafka_cursor_holds_v1(c, w.next_committed)
      FROM (SELECT DISTINCT ON (lp.id) lp.id AS pid, u.q, u.p, u.o - 1 AS next_committed, lp.log_start
              FROM unnest(p_queues, p_partitions, p_offsets) WITH ORDINALITY AS u(q, p, o, i)
              JOIN queen.queues q ON q.tenant_id = p_tenant AND q.name = u.q
              JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = u.p
             ORDER BY lp.id, u.i DESC) w
      LEFT JOIN queen.log_consumers c ON c.partition_id = w.pid AND c.consumer_group = p_group
$$;

-- Stores the offsets of one OffsetCommit: entry i commits p_offsets[i] on (p_queues[i], p_partitions[i]). A partition
-- within the topic's partition count (queen.kafka_topics_v1) that was never written is created; entries naming a
-- topic or partition that does not exist are left out of the answer (the caller reports them unknown); of two
-- entries for one partition the later wins, as two commits in that order would. A commit is a seek: it may move the
-- cursor backward or forward, and it drops any lease an HTTP pop holds on that cursor with its retry state, exactly
-- as POST .../seek does. total_consumed grows by what the cursor moved forward. A cursor that already holds the
-- committed value and no lease is not written (a consumer commits every assigned partition after each poll, most of
-- them unmoved: rewriting those rows was most of the cost). Takes the queue-membership locks shared first (a queue
-- delete under way is waited out, never an FK error), then the cursor rows it changes in (partition_id,
-- consumer_group) order, the global lock order.
-- Cost: the entries are resolved to partitions ONCE (one unique-key probe of log_partitions and one of log_consumers
-- each), a write per moved cursor. The search for never-written partitions runs only when some entry resolved to
-- no partition: it probes log_partitions per entry again, and measured under the librdkafka soak (2026-12-06) it
-- was more than half of this function's time when it ran on every commit.
-- p_pids (optional): entry i's partition id as an earlier answer gave it (NULL: not known). A partition whose cursor
-- already holds the committed value is then answered from one primary-key probe of log_consumers, without resolving
-- names, by a row that carries only its id (the names and the committed value are NULL: the caller sent the id with
-- the entry): a consumer commits every assigned partition after each poll, most of them unmoved. When every entry
-- comes with the id of a partition that has a cursor row (a consumer committing its assignment again), the moved
-- cursors are written by id as well, answered the same way: such a commit resolves no name. An id is never reused
-- and a partition never renamed, so a known id names the same partition as long as its cursor row exists; a
-- partition deleted meanwhile has no cursor row, and its entry takes the path by name.
DROP FUNCTION IF EXISTS queen.kafka_offset_commit_v1(UUID, TEXT, TEXT[], TEXT[], BIGINT[]);
DROP FUNCTION IF EXISTS queen.kafka_offset_commit_v1(UUID, TEXT, TEXT[], TEXT[], BIGINT[], UUID[]);
CREATE FUNCTION queen.kafka_offset_commit_v1(p_tenant UUID, p_group TEXT, p_queues TEXT[], p_partitions TEXT[],
                                             p_offsets BIGINT[], p_pids UUID[] DEFAULT NULL)
RETURNS TABLE (queue_name TEXT, partition_name TEXT, committed BIGINT, partition_id UUID)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_held    UUID[];
    v_move    UUID[];
    v_move_next BIGINT[];
    v_all     BOOLEAN;
    v_written BIGINT := 0;
    v_names   TEXT[];
    v_queues  TEXT[];
    v_parts   TEXT[];
    v_pids    UUID[];
    v_qs      TEXT[];
    v_ps      TEXT[];
    v_next    BIGINT[];
    v_start   BIGINT[];
    v_write   BOOLEAN[];
    v_wanted  INT;
BEGIN
    IF p_pids IS NOT NULL THEN
        -- By id, each partition by its last entry: the cursors that already hold the committed value are answered
        -- from this read alone. When every entry has a cursor row under its id, the others are locked and written
        -- below without resolving names; otherwise they take the path by name, which locks every cursor it writes
        -- in one ordered pass (locking some here and the rest there would break the global lock order).
        SELECT array_agg(x.pid) FILTER (WHERE x.held), array_agg(x.pid ORDER BY x.pid) FILTER (WHERE NOT x.held),
               array_agg(x.nxt ORDER BY x.pid) FILTER (WHERE NOT x.held), COALESCE(bool_and(x.found), false)
          INTO v_held, v_move, v_move_next, v_all
          FROM (SELECT DISTINCT ON (u.pid) u.pid, u.o - 1 AS nxt, c.partition_id IS NOT NULL AS found,
                       c.partition_id IS NOT NULL AND queen.kafka_cursor_holds_v1(c, u.o - 1) AS held
                  FROM unnest(p_pids, p_offsets) WITH ORDINALITY AS u(pid, o, i)
                  LEFT JOIN queen.log_consumers c ON c.partition_id = u.pid AND c.consumer_group = p_group
                 ORDER BY u.pid, u.i DESC) x;
        IF v_all AND v_move IS NOT NULL THEN
            -- the membership locks first, as the path by name takes them (a queue delete under way is waited out),
            -- then the cursor rows in (partition_id, consumer_group) order; a row deleted since the read (its
            -- group's offsets deleted) is not written, and its entry takes the path by name
            v_names := ARRAY(SELECT DISTINCT n FROM unnest(p_queues) AS n);
            PERFORM queen.lock_queues_shared_v1(array_fill(p_tenant, ARRAY[cardinality(v_names)]), v_names);
            WITH locked AS (
                SELECT c.partition_id, m.nxt
                  FROM unnest(v_move, v_move_next) AS m(pid, nxt)
                  JOIN queen.log_consumers c ON c.partition_id = m.pid AND c.consumer_group = p_group
                 ORDER BY c.partition_id FOR UPDATE OF c),
            written AS (
                UPDATE queen.log_consumers c
                   SET committed = l.nxt,
                       total_consumed = c.total_consumed + GREATEST(l.nxt - c.committed, 0),
                       batch_end = NULL, worker_id = NULL, lease_expires_at = NULL, lease_acquired_at = NULL,
                       batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL, lease_conflated = FALSE
                  FROM locked l
                 WHERE c.partition_id = l.partition_id AND c.consumer_group = p_group
                RETURNING c.partition_id)
            SELECT v_held || array_agg(w.partition_id), count(*) INTO v_held, v_written FROM written w;
        END IF;
        IF v_held IS NOT NULL THEN
            RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, h.pid FROM unnest(v_held) AS h(pid);
        END IF;
        IF v_all AND v_written = COALESCE(cardinality(v_move), 0) THEN
            RETURN;
        END IF;
        -- the entries not answered above: no id sent, no cursor row under it, or a moved cursor of a commit not
        -- wholly known by id
        SELECT array_agg(u.q ORDER BY u.i), array_agg(u.p ORDER BY u.i), array_agg(u.o ORDER BY u.i)
          INTO p_queues, p_partitions, p_offsets
          FROM unnest(p_queues, p_partitions, p_offsets, p_pids) WITH ORDINALITY AS u(q, p, o, pid, i)
         WHERE u.pid IS NULL OR NOT u.pid = ANY (COALESCE(v_held, '{}'));
        IF p_queues IS NULL THEN
            RETURN;
        END IF;
    END IF;
    v_names := ARRAY(SELECT DISTINCT n FROM unnest(p_queues) AS n);
    PERFORM queen.lock_queues_shared_v1(array_fill(p_tenant, ARRAY[cardinality(v_names)]), v_names);
    FOR attempt IN 1 .. 2 LOOP
        -- a cursor is written when it moves, holds lease or retry state, or does not exist yet
        SELECT array_agg(t.pid ORDER BY t.pid), array_agg(t.queue_name ORDER BY t.pid),
               array_agg(t.partition_name ORDER BY t.pid), array_agg(t.next_committed ORDER BY t.pid),
               array_agg(t.log_start ORDER BY t.pid), array_agg(NOT t.holds ORDER BY t.pid)
          INTO v_pids, v_qs, v_ps, v_next, v_start, v_write
          FROM queen.kafka_commit_targets_v1(p_tenant, p_group, p_queues, p_partitions, p_offsets) t;
        EXIT WHEN attempt = 2;
        SELECT count(*) INTO v_wanted FROM (SELECT DISTINCT u.q, u.p FROM unnest(p_queues, p_partitions) AS u(q, p)) u;
        EXIT WHEN COALESCE(cardinality(v_pids), 0) >= v_wanted;
        -- a partition of the topic that was never written has no row yet: it gets one, as a push would, so a
        -- consumer assigned an empty partition can commit its position there
        SELECT array_agg(u.q), array_agg(u.p) INTO v_queues, v_parts
          FROM (SELECT DISTINCT u.q, u.p FROM unnest(p_queues, p_partitions) AS u(q, p)) u
          JOIN queen.kafka_topics_v1(p_tenant, v_names) t ON t.name = u.q
         WHERE u.p ~ '^(0|[1-9][0-9]{0,9})$' AND u.p::bigint < t.partitions
           AND NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.queue_id = t.queue_id AND lp.name = u.p);
        EXIT WHEN v_queues IS NULL;
        PERFORM queen.provision_partitions_v1(array_fill(p_tenant, ARRAY[cardinality(v_queues)]), v_queues, v_parts);
    END LOOP;
    IF v_pids IS NULL THEN
        RETURN;
    END IF;
    IF true = ANY (v_write) THEN
        -- the existing cursors it writes, locked in (partition_id, consumer_group) order (the arrays are by pid)
        PERFORM 1 FROM queen.log_consumers c
         WHERE c.partition_id = ANY (ARRAY(SELECT x.pid FROM unnest(v_pids, v_write) AS x(pid, w) WHERE x.w))
           AND c.consumer_group = p_group
         ORDER BY c.partition_id FOR UPDATE OF c;
        INSERT INTO queen.log_consumers AS c (partition_id, consumer_group, committed, total_consumed)
        SELECT x.pid, p_group, x.nxt, GREATEST(x.nxt - (x.st - 1), 0)
          FROM unnest(v_pids, v_next, v_start, v_write) AS x(pid, nxt, st, w)
         WHERE x.w
         ORDER BY x.pid
        ON CONFLICT (partition_id, consumer_group) DO UPDATE
           SET committed = EXCLUDED.committed,
               total_consumed = c.total_consumed + GREATEST(EXCLUDED.committed - c.committed, 0),
               batch_end = NULL, worker_id = NULL, lease_expires_at = NULL, lease_acquired_at = NULL,
               batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL, lease_conflated = FALSE;
    END IF;
    RETURN QUERY SELECT x.q, x.p, x.nxt, x.pid FROM unnest(v_qs, v_ps, v_next, v_pids) AS x(q, p, nxt, pid);
END $$;

-- The cursors of a group on the named queues (p_queues NULL: on every queue of the tenant). Cost: the group's
-- cursors of the tenant (primary-key rows of log_consumers joined to their partitions).
CREATE OR REPLACE FUNCTION queen.kafka_offset_fetch_v1(p_tenant UUID, p_group TEXT, p_queues TEXT[])
RETURNS TABLE (queue_name TEXT, partition_name TEXT, committed BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT q.name::text, lp.name, c.committed
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id
      JOIN queen.log_consumers c ON c.partition_id = lp.id AND c.consumer_group = p_group
     WHERE q.tenant_id = p_tenant AND (p_queues IS NULL OR q.name = ANY (p_queues))
     ORDER BY 1, 2
$$;

-- The groups of a tenant that hold at least one cursor (queue mode excluded): what ListGroups reports besides the
-- groups with members, and how DescribeGroups / DeleteGroups tell an unknown group from one with offsets only.
-- p_groups NULL: every group. Cost: every cursor of the tenant's queues (p_groups narrows it to those groups').
CREATE OR REPLACE FUNCTION queen.kafka_groups_with_offsets_v1(p_tenant UUID, p_groups TEXT[])
RETURNS TABLE (consumer_group TEXT)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT c.consumer_group
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id
      JOIN queen.log_consumers c ON c.partition_id = lp.id
     WHERE q.tenant_id = p_tenant AND c.consumer_group <> '__QUEUE_MODE__'
       AND (p_groups IS NULL OR c.consumer_group = ANY (p_groups))
     ORDER BY 1
$$;
