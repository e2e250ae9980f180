-- 029_kafka_share_groups.sql: Kafka share groups (KIP-932) on Queen's cursors (io.queen.kafka.share,
-- docs/kafka.md "Share groups"). Applied at every boot, idempotently.
--
-- A share group's progress on a partition is the Queen cursor of that (partition, group): committed + 1 is Kafka's
-- share-partition start offset. The records above it that are in flight (acquired by a member under a lock,
-- released for another delivery, accepted out of order, or waiting to be filed as dead letters) have a row each in
-- queen.kafka_share_records, at most share.partition.max.record.locks of them per (partition, group): a bounded
-- window, not a row per message; they are contiguous from the cursor (records are acquired in offset order and only
-- the cursor's move removes them). While such rows exist the cursor row carries a lease held by the share group
-- (worker_id 'kafka-share'), so an HTTP pop of the same group name skips the partition as it skips any leased one,
-- and a share fetch skips a partition an HTTP consumer holds: one lease per (partition, group), shared by both.
--
-- Invariant (checked by queen.kafka_share_check_v1): the share records of (partition, group) above the cursor are
-- contiguous from its committed offset + 1 and end at or below the partition's last offset (records at or below
-- it are done: an HTTP consumer of the same name acknowledged them, and the next share operation deletes them); an acquired record has a member and a
-- lock expiry; a live lock lies under the cursor's share lease (whose expiry is never before the lock's).

-- states: 0 available (released or lock expired, to be delivered again), 1 acquired, 2 accepted,
--         4 to be dead-lettered (rejected or delivery count exhausted; the broker files its payload, then it is done)
CREATE TABLE IF NOT EXISTS queen.kafka_share_records (
    partition_id    UUID NOT NULL REFERENCES queen.log_partitions (id) ON DELETE CASCADE,
    consumer_group  TEXT NOT NULL,
    "offset"        BIGINT NOT NULL,
    state           SMALLINT NOT NULL CHECK (state IN (0, 1, 2, 4)),
    delivery_count  SMALLINT NOT NULL DEFAULT 0,
    member_id       TEXT,
    lock_expires_at TIMESTAMPTZ,
    PRIMARY KEY (partition_id, consumer_group, "offset")
);
-- every fetch and acknowledgement rewrites these rows: room for HOT updates, vacuumed by churn not size
ALTER TABLE queen.kafka_share_records SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 500,
    vacuum_truncate = off
);

-- When a share group began (its first heartbeat): share.auto.offset.reset=latest starts a partition's cursor at
-- the first record committed after this, as Kafka starts it at the end of the log when the group is initialized.
CREATE TABLE IF NOT EXISTS queen.kafka_share_groups (
    tenant_id  UUID NOT NULL,
    group_id   TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, group_id)
);

-- Group configs set through IncrementalAlterConfigs on a GROUP resource (share.auto.offset.reset,
-- share.record.lock.duration.ms, share.delivery.count.limit); an unset config takes the broker's default.
CREATE TABLE IF NOT EXISTS queen.kafka_group_configs (
    tenant_id UUID NOT NULL,
    group_id  TEXT NOT NULL,
    name      TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, group_id, name)
);

-- Registers a share group (idempotent) and answers when it began.
CREATE OR REPLACE FUNCTION queen.kafka_share_group_v1(p_tenant UUID, p_group TEXT)
RETURNS TIMESTAMPTZ
LANGUAGE plpgsql AS $$
DECLARE
    v_at TIMESTAMPTZ;
BEGIN
    INSERT INTO queen.kafka_share_groups (tenant_id, group_id) VALUES (p_tenant, p_group)
    ON CONFLICT (tenant_id, group_id) DO NOTHING;
    SELECT g.created_at INTO v_at FROM queen.kafka_share_groups g
     WHERE g.tenant_id = p_tenant AND g.group_id = p_group;
    RETURN v_at;
END $$;

-- Whether the share group began (a member joined once, or its offsets were set).
CREATE OR REPLACE FUNCTION queen.kafka_share_group_exists_v1(p_tenant UUID, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM queen.kafka_share_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group)
$$;

-- A group's configs (all of them; the broker fills in defaults).
CREATE OR REPLACE FUNCTION queen.kafka_group_configs_v1(p_tenant UUID, p_group TEXT)
RETURNS TABLE (name TEXT, value TEXT)
LANGUAGE sql STABLE AS $$
    SELECT c.name, c.value FROM queen.kafka_group_configs c
     WHERE c.tenant_id = p_tenant AND c.group_id = p_group ORDER BY c.name
$$;

-- Sets (p_value not NULL) or removes one group config.
CREATE OR REPLACE FUNCTION queen.kafka_set_group_config_v1(p_tenant UUID, p_group TEXT, p_name TEXT, p_value TEXT)
RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    IF p_value IS NULL THEN
        DELETE FROM queen.kafka_group_configs c
         WHERE c.tenant_id = p_tenant AND c.group_id = p_group AND c.name = p_name;
    ELSE
        INSERT INTO queen.kafka_group_configs (tenant_id, group_id, name, value)
        VALUES (p_tenant, p_group, p_name, p_value)
        ON CONFLICT (tenant_id, group_id, name) DO UPDATE SET value = EXCLUDED.value;
    END IF;
END $$;

-- Locks and returns the cursor row of (partition, group) for a share operation, creating it where missing at the
-- reset position: 'earliest' = the log start, else the first record committed at or after p_since (the end of the
-- log when none is). Records above the cursor that it passed meanwhile (an HTTP consumer acknowledged them) are
-- forgotten, and expired locks end: the record is available again, or to be dead-lettered once its delivery count
-- reached p_limit. Answers the committed offset, or NULL when an HTTP consumer's live lease holds the partition.
CREATE OR REPLACE FUNCTION queen.kafka_share_lock_v1(p_pid UUID, p_group TEXT, p_reset TEXT, p_since TIMESTAMPTZ,
                                                     p_limit INT)
RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    v_committed BIGINT;
    v_worker    TEXT;
    v_end       BIGINT;
    v_expires   TIMESTAMPTZ;
    v_start     BIGINT;
BEGIN
    SELECT cc.committed, cc.worker_id, cc.batch_end, cc.lease_expires_at
      INTO v_committed, v_worker, v_end, v_expires
      FROM queen.log_consumers cc WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group FOR UPDATE;
    IF NOT FOUND THEN
        IF p_reset = 'earliest' THEN
            SELECT lp.log_start INTO v_start FROM queen.log_partitions lp WHERE lp.id = p_pid;
        ELSE
            SELECT COALESCE((SELECT s.base_offset FROM queen.log_segments s
                              WHERE s.partition_id = p_pid AND s.created_at >= p_since
                              ORDER BY s.base_offset LIMIT 1), lp.last_offset + 1)
              INTO v_start FROM queen.log_partitions lp WHERE lp.id = p_pid;
        END IF;
        INSERT INTO queen.log_consumers (partition_id, consumer_group, committed)
        VALUES (p_pid, p_group, COALESCE(v_start, 0) - 1)
        ON CONFLICT (partition_id, consumer_group) DO NOTHING;
        SELECT cc.committed, cc.worker_id, cc.batch_end, cc.lease_expires_at
          INTO v_committed, v_worker, v_end, v_expires
          FROM queen.log_consumers cc WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group FOR UPDATE;
    END IF;
    IF v_end IS NOT NULL AND v_worker IS DISTINCT FROM 'kafka-share' AND v_expires > clock_timestamp() THEN
        RETURN NULL;
    END IF;
    -- retention or DeleteRecords removed records the group had not reached: it goes on from the log start
    SELECT lp.log_start INTO v_start FROM queen.log_partitions lp WHERE lp.id = p_pid;
    IF v_committed < v_start - 1 THEN
        UPDATE queen.log_consumers cc SET committed = v_start - 1
         WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
        v_committed := v_start - 1;
    END IF;
    DELETE FROM queen.kafka_share_records r
     WHERE r.partition_id = p_pid AND r.consumer_group = p_group AND r."offset" <= v_committed;
    UPDATE queen.kafka_share_records r
       SET state = CASE WHEN r.delivery_count >= p_limit THEN 4 ELSE 0 END, member_id = NULL,
           lock_expires_at = NULL
     WHERE r.partition_id = p_pid AND r.consumer_group = p_group AND r.state = 1
       AND r.lock_expires_at <= clock_timestamp();
    RETURN v_committed;
END $$;

-- Moves the cursor over the accepted records that follow it and sets the share lease to what remains in flight
-- (none: no lease). Called with the cursor row locked (kafka_share_lock_v1), last in every share operation.
CREATE OR REPLACE FUNCTION queen.kafka_share_settle_v1(p_pid UUID, p_group TEXT, p_lock_ms INT)
RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    v_committed BIGINT;
    v_next      BIGINT;
    v_end       BIGINT;
    v_expires   TIMESTAMPTZ;
BEGIN
    SELECT cc.committed INTO v_committed FROM queen.log_consumers cc
     WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
    -- the records in flight are contiguous from the cursor (acquired in offset order, dropped only below the
    -- cursor): the first one not accepted, or the one after the last, is where the cursor's successor stands
    SELECT COALESCE(min(r."offset") FILTER (WHERE r.state <> 2), max(r."offset") + 1, v_committed + 1)
      INTO v_next
      FROM queen.kafka_share_records r
     WHERE r.partition_id = p_pid AND r.consumer_group = p_group;
    IF v_next - 1 > v_committed THEN
        DELETE FROM queen.kafka_share_records r
         WHERE r.partition_id = p_pid AND r.consumer_group = p_group AND r."offset" < v_next;
        v_committed := v_next - 1;
    END IF;
    SELECT max(r."offset"), max(r.lock_expires_at) INTO v_end, v_expires FROM queen.kafka_share_records r
     WHERE r.partition_id = p_pid AND r.consumer_group = p_group;
    UPDATE queen.log_consumers cc
       SET total_consumed = cc.total_consumed + (v_committed - cc.committed), committed = v_committed,
           batch_end = v_end,
           worker_id = CASE WHEN v_end IS NULL THEN NULL ELSE 'kafka-share' END,
           lease_acquired_at = CASE WHEN v_end IS NULL THEN NULL ELSE COALESCE(cc.lease_acquired_at, now()) END,
           lease_expires_at = CASE WHEN v_end IS NULL THEN NULL
                                   ELSE GREATEST(v_expires, clock_timestamp() + make_interval(secs => p_lock_ms / 1000.0))
                              END
     WHERE cc.partition_id = p_pid AND cc.consumer_group = p_group;
END $$;

-- ShareFetch on one partition: acquires for p_member up to p_max records above the cursor, records released
-- earlier first (in offset order), then records never delivered, within p_window offsets of the cursor (Kafka's
-- share.partition.max.record.locks), each with its delivery count + 1 and a lock until now + p_lock_ms. Answers
-- the acquired offsets with their delivery counts ('acquired') and the records waiting to be dead-lettered
-- ('dead_letter', filed by the broker through kafka_share_dead_letter_v1); nothing for an unknown partition or one
-- an HTTP consumer holds.
CREATE OR REPLACE FUNCTION queen.kafka_share_acquire_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT, p_group TEXT,
                                                        p_member TEXT, p_max INT, p_window INT, p_lock_ms INT,
                                                        p_limit INT, p_reset TEXT, p_since TIMESTAMPTZ)
RETURNS TABLE (kind TEXT, "offset" BIGINT, delivery_count INT)
LANGUAGE plpgsql AS $$
DECLARE
    v_pid       UUID;
    v_last      BIGINT;
    v_committed BIGINT;
    v_lock      TIMESTAMPTZ := clock_timestamp() + make_interval(secs => p_lock_ms / 1000.0);
    v_from      BIGINT;
    v_left      INT := p_max;
    v_n         INT;
BEGIN
    SELECT lp.id, lp.last_offset INTO v_pid, v_last
      FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partition
     WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF v_pid IS NULL THEN
        RETURN;
    END IF;
    v_committed := queen.kafka_share_lock_v1(v_pid, p_group, p_reset, p_since, p_limit);
    IF v_committed IS NULL THEN
        RETURN;
    END IF;
    -- released records first
    UPDATE queen.kafka_share_records r
       SET state = 1, delivery_count = r.delivery_count + 1, member_id = p_member, lock_expires_at = v_lock
     WHERE r.partition_id = v_pid AND r.consumer_group = p_group
       AND r."offset" = ANY (ARRAY(SELECT p."offset" FROM queen.kafka_share_records p
                                    WHERE p.partition_id = v_pid AND p.consumer_group = p_group AND p.state = 0
                                    ORDER BY p."offset" LIMIT v_left));
    GET DIAGNOSTICS v_n = ROW_COUNT;
    v_left := v_left - v_n;
    -- then records never delivered, after the highest one in flight
    IF v_left > 0 THEN
        SELECT COALESCE(max(r."offset"), v_committed) + 1 INTO v_from FROM queen.kafka_share_records r
         WHERE r.partition_id = v_pid AND r.consumer_group = p_group;
        INSERT INTO queen.kafka_share_records (partition_id, consumer_group, "offset", state, delivery_count,
                                               member_id, lock_expires_at)
        SELECT v_pid, p_group, g, 1, 1, p_member, v_lock
          FROM generate_series(v_from, LEAST(v_last, v_committed + p_window, v_from + v_left - 1)) AS g;
    END IF;
    PERFORM queen.kafka_share_settle_v1(v_pid, p_group, p_lock_ms);
    RETURN QUERY
        SELECT CASE r.state WHEN 1 THEN 'acquired' ELSE 'dead_letter' END, r."offset", r.delivery_count::int
          FROM queen.kafka_share_records r
         WHERE r.partition_id = v_pid AND r.consumer_group = p_group
           AND ((r.state = 1 AND r.member_id = p_member AND r.lock_expires_at = v_lock) OR r.state = 4)
         ORDER BY r."offset";
END $$;

-- ShareAcknowledge (or the acknowledgements of a ShareFetch) on one partition: p_types[i] for p_offsets[i], as
-- Kafka numbers them: 0 gap (no record there: done), 1 accept (done), 2 release (available again, or to be
-- dead-lettered once its delivery count reached p_limit), 3 reject (to be dead-lettered), 4 renew (the lock runs
-- p_lock_ms from now). Only a record acquired by p_member under a live lock can be acknowledged; the others are
-- answered 'invalid' (INVALID_RECORD_STATE) and left as they are. Answers one row per invalid offset and one per
-- record waiting to be dead-lettered ('dead_letter').
CREATE OR REPLACE FUNCTION queen.kafka_share_acknowledge_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                            p_group TEXT, p_member TEXT, p_offsets BIGINT[],
                                                            p_types INT[], p_lock_ms INT, p_limit INT)
RETURNS TABLE (kind TEXT, "offset" BIGINT, delivery_count INT)
LANGUAGE plpgsql AS $$
DECLARE
    v_pid       UUID;
    v_committed BIGINT;
    v_type      INT;
    v_lock      TIMESTAMPTZ := clock_timestamp() + make_interval(secs => p_lock_ms / 1000.0);
BEGIN
    SELECT lp.id INTO v_pid
      FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partition
     WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF v_pid IS NULL THEN
        RETURN QUERY SELECT 'invalid'::text, a.o, 0 FROM unnest(p_offsets) AS a (o);
        RETURN;
    END IF;
    -- the lock fixes the share group's row order (cursor, then its records), as every share operation takes it
    v_committed := queen.kafka_share_lock_v1(v_pid, p_group, 'earliest', NULL, p_limit);
    IF v_committed IS NULL THEN
        -- an HTTP consumer took the partition over after every lock had expired: nothing is held any more
        RETURN QUERY SELECT 'invalid'::text, a.o, 0 FROM unnest(p_offsets) AS a (o);
        RETURN;
    END IF;
    RETURN QUERY
        SELECT 'invalid'::text, a.o, 0
          FROM unnest(p_offsets, p_types) AS a (o, t)
         WHERE NOT EXISTS (SELECT 1 FROM queen.kafka_share_records r
                            WHERE r.partition_id = v_pid AND r.consumer_group = p_group AND r."offset" = a.o
                              AND r.state = 1 AND r.member_id = p_member)
            OR a.t NOT IN (0, 1, 2, 3, 4);
    -- one UPDATE per acknowledge type, its offsets matched through the primary key (= ANY): joined to the unnested
    -- arrays instead, the planner loops over every record for every acknowledged offset
    FOR v_type IN SELECT DISTINCT a.t FROM unnest(p_types) AS a (t) WHERE a.t IN (0, 1, 2, 3, 4) LOOP
        UPDATE queen.kafka_share_records r
           SET state = CASE v_type WHEN 0 THEN 2 WHEN 1 THEN 2 WHEN 3 THEN 4 WHEN 4 THEN 1
                                   ELSE CASE WHEN r.delivery_count >= p_limit THEN 4 ELSE 0 END END,
               member_id = CASE WHEN v_type = 4 THEN r.member_id END,
               lock_expires_at = CASE WHEN v_type = 4 THEN v_lock END
         WHERE r.partition_id = v_pid AND r.consumer_group = p_group AND r.state = 1 AND r.member_id = p_member
           AND r."offset" = ANY (ARRAY(SELECT a.o FROM unnest(p_offsets, p_types) AS a (o, t) WHERE a.t = v_type));
    END LOOP;
    PERFORM queen.kafka_share_settle_v1(v_pid, p_group, p_lock_ms);
    RETURN QUERY
        SELECT 'dead_letter'::text, r."offset", r.delivery_count::int FROM queen.kafka_share_records r
         WHERE r.partition_id = v_pid AND r.consumer_group = p_group AND r.state = 4 ORDER BY r."offset";
END $$;

-- Releases every record p_member holds in the group on the named partitions (all of the group's partitions when
-- p_partition is NULL): the member left or closed its share session. Delivery counts stay.
CREATE OR REPLACE FUNCTION queen.kafka_share_release_member_v1(p_tenant UUID, p_group TEXT, p_member TEXT,
                                                               p_limit INT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_n INT := 0;
    v_row RECORD;
BEGIN
    FOR v_row IN
        SELECT DISTINCT r.partition_id FROM queen.kafka_share_records r
          JOIN queen.log_partitions lp ON lp.id = r.partition_id
          JOIN queen.queues q ON q.id = lp.queue_id AND q.tenant_id = p_tenant
         WHERE r.consumer_group = p_group AND r.member_id = p_member AND r.state = 1
         ORDER BY r.partition_id
    LOOP
        PERFORM queen.kafka_share_lock_v1(v_row.partition_id, p_group, 'earliest', NULL, p_limit);
        UPDATE queen.kafka_share_records r
           SET state = CASE WHEN r.delivery_count >= p_limit THEN 4 ELSE 0 END, member_id = NULL,
               lock_expires_at = NULL
         WHERE r.partition_id = v_row.partition_id AND r.consumer_group = p_group AND r.member_id = p_member
           AND r.state = 1;
        v_n := v_n + 1;
    END LOOP;
    RETURN v_n;
END $$;

-- Files records waiting to be dead-lettered into queen.log_dlq (the payload snapshots the broker decoded, one
-- array element per offset) and marks them done; the cursor moves over them once everything before is done. A
-- record no longer waiting (filed by a concurrent call, or passed by the cursor) is left alone. Answers how many
-- were filed.
DROP FUNCTION IF EXISTS queen.kafka_share_dead_letter_v1(UUID, TEXT, TEXT, TEXT, BIGINT, UUID, TEXT, JSONB, TEXT,
                                                         UUID, TEXT, TIMESTAMPTZ, INT, INT);
CREATE OR REPLACE FUNCTION queen.kafka_share_dead_letters_v1(p_tenant UUID, p_queue TEXT, p_partition TEXT,
                                                             p_group TEXT, p_offsets BIGINT[], p_message_ids UUID[],
                                                             p_txns TEXT[], p_payloads TEXT[], p_errors TEXT[],
                                                             p_traces UUID[], p_subs TEXT[], p_created TEXT[],
                                                             p_lock_ms INT, p_limit INT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_pid UUID;
    v_n   INT;
BEGIN
    SELECT lp.id INTO v_pid
      FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partition
     WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF v_pid IS NULL OR queen.kafka_share_lock_v1(v_pid, p_group, 'earliest', NULL, p_limit) IS NULL THEN
        RETURN 0;
    END IF;
    WITH filed AS (
        UPDATE queen.kafka_share_records r SET state = 2
         WHERE r.partition_id = v_pid AND r.consumer_group = p_group AND r.state = 4 AND r."offset" = ANY (p_offsets)
        RETURNING r."offset", r.delivery_count)
    INSERT INTO queen.log_dlq (partition_id, consumer_group, "offset", message_id, transaction_id, payload, error,
                               retry_count, trace_id, producer_sub, message_created_at)
    SELECT v_pid, p_group, f."offset", a.mid, a.txn, a.payload::jsonb, a.err, GREATEST(f.delivery_count - 1, 0),
           a.trace, a.sub, a.created::timestamptz
      FROM filed f
      JOIN unnest(p_offsets, p_message_ids, p_txns, p_payloads, p_errors, p_traces, p_subs, p_created)
           AS a (o, mid, txn, payload, err, trace, sub, created) ON a.o = f."offset";
    GET DIAGNOSTICS v_n = ROW_COUNT;
    PERFORM queen.kafka_share_settle_v1(v_pid, p_group, p_lock_ms);
    RETURN v_n;
END $$;

-- The share invariant above, per (partition, group): the violations found (none = holds).
CREATE OR REPLACE FUNCTION queen.kafka_share_check_v1()
RETURNS TABLE (partition_id UUID, consumer_group TEXT, problem TEXT)
LANGUAGE sql STABLE AS $$
    SELECT r.partition_id, r.consumer_group, 'share record beyond the log (offset ' || r."offset" || ')'
      FROM queen.kafka_share_records r JOIN queen.log_partitions lp ON lp.id = r.partition_id
     WHERE r."offset" > lp.last_offset
    UNION ALL
    SELECT r.partition_id, r.consumer_group, 'acquired share record without member or lock (offset '
           || r."offset" || ')'
      FROM queen.kafka_share_records r
     WHERE r.state = 1 AND (r.member_id IS NULL OR r.lock_expires_at IS NULL)
    UNION ALL
    SELECT r.partition_id, r.consumer_group, 'share records not contiguous from the cursor'
      FROM queen.kafka_share_records r
      JOIN queen.log_consumers cc ON cc.partition_id = r.partition_id AND cc.consumer_group = r.consumer_group
     WHERE r."offset" > cc.committed
     GROUP BY r.partition_id, r.consumer_group, cc.committed
    HAVING min(r."offset") <> cc.committed + 1 OR max(r."offset") - min(r."offset") + 1 <> count(*)
    UNION ALL
    SELECT DISTINCT r.partition_id, r.consumer_group, 'a live lock without the share lease'
      FROM queen.kafka_share_records r
      LEFT JOIN queen.log_consumers cc ON cc.partition_id = r.partition_id AND cc.consumer_group = r.consumer_group
     WHERE r.state = 1 AND r.lock_expires_at > now()
       AND (cc.worker_id IS DISTINCT FROM 'kafka-share' OR cc.lease_expires_at < r.lock_expires_at)
$$;

-- DescribeShareGroupOffsets: per partition of the named topics (all topics the group has a cursor on when
-- p_topics is NULL), the share-partition start offset (cursor + 1; -1 where the group has no cursor) and the lag
-- (records from there to the high watermark; -1 without a cursor). Only a share group (it began) has offsets here.
CREATE OR REPLACE FUNCTION queen.kafka_share_offsets_v1(p_tenant UUID, p_group TEXT, p_topics TEXT[])
RETURNS TABLE (topic TEXT, topic_id UUID, partition_index INT, start_offset BIGINT, lag BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT q.name, q.id, lp.name::int,
           CASE WHEN cc.partition_id IS NULL THEN -1 ELSE cc.committed + 1 END,
           CASE WHEN cc.partition_id IS NULL THEN -1 ELSE GREATEST(lp.last_offset - cc.committed, 0) END
      FROM queen.queues q
      JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name ~ '^[0-9]{1,6}$'
      LEFT JOIN queen.log_consumers cc ON cc.partition_id = lp.id AND cc.consumer_group = p_group
     WHERE q.tenant_id = p_tenant
       AND EXISTS (SELECT 1 FROM queen.kafka_share_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group)
       AND (q.name = ANY (p_topics) OR (p_topics IS NULL AND cc.partition_id IS NOT NULL))
     ORDER BY q.name, lp.name::int
$$;

-- AlterShareGroupOffsets on one partition (the group has no members): the cursor moves so that p_start is the next
-- record delivered (clamped to the log), the records in flight are forgotten and the share lease ends. False for
-- an unknown topic or partition.
CREATE OR REPLACE FUNCTION queen.kafka_share_set_start_v1(p_tenant UUID, p_group TEXT, p_queue TEXT,
                                                          p_partition TEXT, p_start BIGINT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_pid   UUID;
    v_first BIGINT;
    v_next  BIGINT;
BEGIN
    SELECT lp.id, lp.log_start, lp.last_offset + 1 INTO v_pid, v_first, v_next
      FROM queen.queues q JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = p_partition
     WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF v_pid IS NULL THEN
        RETURN FALSE;
    END IF;
    INSERT INTO queen.kafka_share_groups (tenant_id, group_id) VALUES (p_tenant, p_group)
    ON CONFLICT (tenant_id, group_id) DO NOTHING;
    INSERT INTO queen.log_consumers AS cc (partition_id, consumer_group, committed)
    VALUES (v_pid, p_group, LEAST(GREATEST(p_start, v_first), v_next) - 1)
    ON CONFLICT (partition_id, consumer_group) DO UPDATE
       SET committed = EXCLUDED.committed, batch_end = NULL, worker_id = NULL, lease_expires_at = NULL,
           lease_acquired_at = NULL, batch_retry_count = 0, attempt_count = 0, attempt_offset = NULL;
    DELETE FROM queen.kafka_share_records r WHERE r.partition_id = v_pid AND r.consumer_group = p_group;
    RETURN TRUE;
END $$;

-- DeleteShareGroupOffsets of one topic (the group has no members): the group's cursors and records in flight on
-- the topic's partitions go; a later fetch starts it again at share.auto.offset.reset, 'latest' counting from now
-- (the group's beginning moves to now, as Kafka initializes a share partition again). False for an unknown topic.
CREATE OR REPLACE FUNCTION queen.kafka_share_delete_offsets_v1(p_tenant UUID, p_group TEXT, p_queue TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_queue UUID;
BEGIN
    SELECT q.id INTO v_queue FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queue;
    IF v_queue IS NULL THEN
        RETURN FALSE;
    END IF;
    DELETE FROM queen.kafka_share_records r USING queen.log_partitions lp
     WHERE lp.queue_id = v_queue AND r.partition_id = lp.id AND r.consumer_group = p_group;
    DELETE FROM queen.log_consumers cc USING queen.log_partitions lp
     WHERE lp.queue_id = v_queue AND cc.partition_id = lp.id AND cc.consumer_group = p_group;
    UPDATE queen.kafka_share_groups g SET created_at = now() WHERE g.tenant_id = p_tenant AND g.group_id = p_group;
    RETURN TRUE;
END $$;

-- The tenant's share groups (those that began), by name.
CREATE OR REPLACE FUNCTION queen.kafka_share_groups_v1(p_tenant UUID)
RETURNS TABLE (group_id TEXT)
LANGUAGE sql STABLE AS $$
    SELECT g.group_id FROM queen.kafka_share_groups g WHERE g.tenant_id = p_tenant ORDER BY g.group_id
$$;

-- DeleteGroups of a share group without members: its records in flight, configs and beginning go (its cursors go
-- with every group's, through the consumer-group delete). False when no such share group was.
CREATE OR REPLACE FUNCTION queen.kafka_share_delete_group_v1(p_tenant UUID, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_n INT;
BEGIN
    DELETE FROM queen.kafka_share_records r USING queen.log_partitions lp, queen.queues q
     WHERE r.consumer_group = p_group AND lp.id = r.partition_id AND q.id = lp.queue_id AND q.tenant_id = p_tenant;
    DELETE FROM queen.kafka_group_configs c WHERE c.tenant_id = p_tenant AND c.group_id = p_group;
    DELETE FROM queen.kafka_share_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n > 0;
END $$;
