-- 023_kafka_transactions.sql: Kafka transactions (io.queen.kafka.txn, docs/kafka.md). A Kafka transaction is staged
-- here, invisible to every reader, and EndTxn(commit) writes its records into their partitions' logs and moves its
-- staged group cursors in ONE PostgreSQL transaction (the log only ever holds committed records); EndTxn(abort)
-- drops the staging. Every broker serves every transactional id: all state is in these tables, a row is locked
-- while it changes. Applied at every boot, idempotently.
--
-- Lock order: a transactional id's row first (FOR UPDATE), then, at commit, the log partitions (log_push_multi_v1)
-- and the group cursors (kafka_offset_commit_v1): the global order of partitions before cursors.

-- One row per transactional id of a tenant. producer_id is unique (from queen.kafka_producer_ids) and keys the
-- staging tables; epoch grows at every InitProducerId and every broker-side abort (the older epoch is fenced).
-- state: Empty (no transaction open), Ongoing (partitions or a group added), CompleteCommit, CompleteAbort.
-- started_at: when the open transaction began (its first AddPartitionsToTxn / AddOffsetsToTxn), NULL otherwise.
CREATE TABLE IF NOT EXISTS queen.kafka_transactions (
    tenant_id        UUID        NOT NULL,
    transactional_id TEXT        NOT NULL,
    producer_id      BIGINT      NOT NULL UNIQUE,
    epoch            SMALLINT    NOT NULL,
    state            TEXT        NOT NULL CHECK (state IN ('Empty', 'Ongoing', 'CompleteCommit', 'CompleteAbort')),
    timeout_ms       INTEGER     NOT NULL,
    started_at       TIMESTAMPTZ,
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    staged_bytes     BIGINT      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, transactional_id)
);
-- the timeout sweep reads only the open transactions
CREATE INDEX IF NOT EXISTS kafka_transactions_open ON queen.kafka_transactions (started_at) WHERE state = 'Ongoing';

-- The partitions added to the open transaction (AddPartitionsToTxn): only these take its records.
CREATE TABLE IF NOT EXISTS queen.kafka_txn_partitions (
    producer_id    BIGINT NOT NULL REFERENCES queen.kafka_transactions (producer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    queue_name     TEXT   NOT NULL,
    partition_name TEXT   NOT NULL,
    PRIMARY KEY (producer_id, queue_name, partition_name)
);

-- The groups added to the open transaction (AddOffsetsToTxn): only these take its offsets.
CREATE TABLE IF NOT EXISTS queen.kafka_txn_groups (
    producer_id    BIGINT NOT NULL REFERENCES queen.kafka_transactions (producer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    consumer_group TEXT   NOT NULL,
    PRIMARY KEY (producer_id, consumer_group)
);

-- Staged record batches: one packed segment (zstd frames + the 16-byte transaction hashes, as a push builds them)
-- per Kafka batch. The key makes a retried Produce of a batch stage nothing.
CREATE TABLE IF NOT EXISTS queen.kafka_txn_records (
    producer_id    BIGINT  NOT NULL REFERENCES queen.kafka_transactions (producer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    queue_name     TEXT    NOT NULL,
    partition_name TEXT    NOT NULL,
    base_sequence  INTEGER NOT NULL,
    record_count   INTEGER NOT NULL,
    hashes         BYTEA   NOT NULL,
    blob           BYTEA   NOT NULL,
    PRIMARY KEY (producer_id, queue_name, partition_name, base_sequence)
);

-- Staged offsets (TxnOffsetCommit), Kafka's "next offset to read"; a later commit of a partition replaces it.
CREATE TABLE IF NOT EXISTS queen.kafka_txn_offsets (
    producer_id    BIGINT NOT NULL REFERENCES queen.kafka_transactions (producer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    consumer_group TEXT   NOT NULL,
    queue_name     TEXT   NOT NULL,
    partition_name TEXT   NOT NULL,
    next_offset    BIGINT NOT NULL,
    PRIMARY KEY (producer_id, consumer_group, queue_name, partition_name)
);
-- OffsetFetch(requireStable) asks by group
CREATE INDEX IF NOT EXISTS kafka_txn_offsets_group ON queen.kafka_txn_offsets (consumer_group);

-- Drops everything the open transaction of p_pid staged.
CREATE OR REPLACE FUNCTION queen.kafka_txn_drop_staging_v1(p_pid BIGINT)
RETURNS VOID
LANGUAGE sql AS $$
    DELETE FROM queen.kafka_txn_records WHERE producer_id = p_pid;
    DELETE FROM queen.kafka_txn_offsets WHERE producer_id = p_pid;
    DELETE FROM queen.kafka_txn_partitions WHERE producer_id = p_pid;
    DELETE FROM queen.kafka_txn_groups WHERE producer_id = p_pid;
$$;

-- The next producer (id, epoch) of a locked row: epoch + 1, or a new producer id with epoch 0 once the epoch is
-- exhausted (as Apache Kafka does at Short.MAX_VALUE - 1).
CREATE OR REPLACE FUNCTION queen.kafka_txn_bump_v1(p_tenant UUID, p_tid TEXT)
RETURNS TABLE (producer_id BIGINT, epoch SMALLINT)
LANGUAGE sql AS $$
    UPDATE queen.kafka_transactions t
       SET producer_id = CASE WHEN t.epoch >= 32766 THEN nextval('queen.kafka_producer_ids') ELSE t.producer_id END,
           epoch = CASE WHEN t.epoch >= 32766 THEN 0 ELSE t.epoch + 1 END
     WHERE t.tenant_id = p_tenant AND t.transactional_id = p_tid
    RETURNING t.producer_id, t.epoch
$$;

-- InitProducerId with a transactional id: a new id (epoch 0), or the same producer id with the epoch bumped, its
-- open transaction aborted (the older epoch is fenced from then on). p_pid / p_epoch >= 0: a producer recovering
-- from an abortable error (KIP-360), which must name the current producer id and epoch, else PRODUCER_FENCED.
-- error: NULL or the name of a Kafka error.
CREATE OR REPLACE FUNCTION queen.kafka_txn_init_v1(p_tenant UUID, p_tid TEXT, p_timeout_ms INT, p_pid BIGINT,
                                                   p_epoch INT)
RETURNS TABLE (error TEXT, producer_id BIGINT, epoch SMALLINT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    t queen.kafka_transactions;
BEGIN
    SELECT * INTO t FROM queen.kafka_transactions
     WHERE tenant_id = p_tenant AND transactional_id = p_tid FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO queen.kafka_transactions (tenant_id, transactional_id, producer_id, epoch, state, timeout_ms)
        VALUES (p_tenant, p_tid, nextval('queen.kafka_producer_ids'), 0, 'Empty', p_timeout_ms)
        ON CONFLICT DO NOTHING
        RETURNING * INTO t;
        IF t.producer_id IS NOT NULL THEN
            RETURN QUERY SELECT NULL::text, t.producer_id, t.epoch;
            RETURN;
        END IF;
        -- another broker created it meanwhile: continue as for an existing id
        SELECT * INTO STRICT t FROM queen.kafka_transactions
         WHERE tenant_id = p_tenant AND transactional_id = p_tid FOR UPDATE;
    END IF;
    IF p_pid >= 0 AND (p_pid <> t.producer_id OR p_epoch <> t.epoch) THEN
        RETURN QUERY SELECT 'PRODUCER_FENCED'::text, -1::bigint, -1::smallint;
        RETURN;
    END IF;
    IF t.state = 'Ongoing' THEN
        PERFORM queen.kafka_txn_drop_staging_v1(t.producer_id);
    END IF;
    UPDATE queen.kafka_transactions
       SET state = 'Empty', timeout_ms = p_timeout_ms, started_at = NULL, staged_bytes = 0, updated_at = now()
     WHERE tenant_id = p_tenant AND transactional_id = p_tid;
    RETURN QUERY SELECT NULL::text, b.producer_id, b.epoch FROM queen.kafka_txn_bump_v1(p_tenant, p_tid) b;
END $$;

-- Locks a transactional id's row for a request of producer (p_pid, p_epoch) and checks who may go on: NULL when
-- the producer is the current one, else INVALID_PRODUCER_ID_MAPPING (unknown id, another producer id) or
-- PRODUCER_FENCED (another epoch). p_exclusive: FOR UPDATE, else FOR SHARE.
CREATE OR REPLACE FUNCTION queen.kafka_txn_check_v1(p_tenant UUID, p_tid TEXT, p_pid BIGINT, p_epoch INT,
                                                    p_exclusive BOOLEAN, OUT error TEXT,
                                                    OUT t queen.kafka_transactions)
LANGUAGE plpgsql AS $$
BEGIN
    IF p_exclusive THEN
        SELECT * INTO t FROM queen.kafka_transactions
         WHERE tenant_id = p_tenant AND transactional_id = p_tid FOR UPDATE;
    ELSE
        SELECT * INTO t FROM queen.kafka_transactions
         WHERE tenant_id = p_tenant AND transactional_id = p_tid FOR SHARE;
    END IF;
    IF t.producer_id IS NULL OR t.producer_id <> p_pid THEN
        error := 'INVALID_PRODUCER_ID_MAPPING';
    ELSIF t.epoch <> p_epoch THEN
        error := 'PRODUCER_FENCED';
    END IF;
END $$;

-- AddPartitionsToTxn (p_group NULL) or AddOffsetsToTxn (p_queues NULL, p_group set): opens the transaction when
-- none is open and adds the partitions or the group to it. error: NULL or a Kafka error name.
CREATE OR REPLACE FUNCTION queen.kafka_txn_add_v1(p_tenant UUID, p_tid TEXT, p_pid BIGINT, p_epoch INT,
                                                  p_queues TEXT[], p_partitions TEXT[], p_group TEXT)
RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    c RECORD;
BEGIN
    c := queen.kafka_txn_check_v1(p_tenant, p_tid, p_pid, p_epoch, TRUE);
    IF c.error IS NOT NULL THEN
        RETURN c.error;
    END IF;
    IF (c.t).state <> 'Ongoing' THEN
        UPDATE queen.kafka_transactions SET state = 'Ongoing', started_at = now(), staged_bytes = 0,
                                            updated_at = now()
         WHERE producer_id = p_pid;
    END IF;
    IF p_queues IS NOT NULL THEN
        INSERT INTO queen.kafka_txn_partitions (producer_id, queue_name, partition_name)
        SELECT p_pid, u.q, u.p FROM unnest(p_queues, p_partitions) AS u(q, p)
        ON CONFLICT DO NOTHING;
    END IF;
    IF p_group IS NOT NULL THEN
        INSERT INTO queen.kafka_txn_groups (producer_id, consumer_group) VALUES (p_pid, p_group)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

-- Stages the record batches of one transactional Produce: entry i is a packed segment of p_counts[i] records
-- for (p_queues[i], p_partitions[i]) starting at producer sequence p_seqs[i], p_sizes[i] bytes as the client sent
-- it. Per entry: error NULL (staged, or already staged by an earlier try of the same batch), or a Kafka error name:
-- INVALID_PRODUCER_EPOCH (another epoch: fenced), INVALID_PRODUCER_ID_MAPPING, INVALID_TXN_STATE (no transaction
-- open, or the partition was not added), TRANSACTION_ABORTABLE (the transaction would exceed p_max_bytes).
CREATE OR REPLACE FUNCTION queen.kafka_txn_stage_v1(p_tenant UUID, p_tid TEXT, p_pid BIGINT, p_epoch INT,
                                                    p_max_bytes BIGINT, p_queues TEXT[], p_partitions TEXT[],
                                                    p_seqs INT[], p_counts INT[], p_sizes BIGINT[],
                                                    p_hashes BYTEA[], p_blobs BYTEA[])
RETURNS TABLE (ord INT, error TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c       RECORD;
    v_bytes BIGINT;
    v_added INT;
BEGIN
    c := queen.kafka_txn_check_v1(p_tenant, p_tid, p_pid, p_epoch, TRUE);
    v_bytes := (c.t).staged_bytes;
    FOR i IN 1 .. cardinality(p_queues) LOOP
        ord := i;
        error := CASE WHEN c.error = 'PRODUCER_FENCED' THEN 'INVALID_PRODUCER_EPOCH' ELSE c.error END;
        IF error IS NULL AND ((c.t).state <> 'Ongoing' OR NOT EXISTS (
                SELECT 1 FROM queen.kafka_txn_partitions tp
                 WHERE tp.producer_id = p_pid AND tp.queue_name = p_queues[i]
                   AND tp.partition_name = p_partitions[i])) THEN
            error := 'INVALID_TXN_STATE';
        END IF;
        IF error IS NULL AND v_bytes + p_sizes[i] > p_max_bytes THEN
            error := 'TRANSACTION_ABORTABLE';
        END IF;
        IF error IS NULL THEN
            INSERT INTO queen.kafka_txn_records (producer_id, queue_name, partition_name, base_sequence,
                                                 record_count, hashes, blob)
            VALUES (p_pid, p_queues[i], p_partitions[i], p_seqs[i], p_counts[i], p_hashes[i], p_blobs[i])
            ON CONFLICT DO NOTHING;
            GET DIAGNOSTICS v_added = ROW_COUNT;
            v_bytes := v_bytes + v_added * p_sizes[i];
        END IF;
        RETURN NEXT;
    END LOOP;
    IF c.error IS NULL AND v_bytes <> (c.t).staged_bytes THEN
        UPDATE queen.kafka_transactions SET staged_bytes = v_bytes, updated_at = now() WHERE producer_id = p_pid;
    END IF;
END $$;

-- TxnOffsetCommit: stages the offsets of group p_group (the group must have been added). Answers the entries
-- staged; the others name a topic or partition that does not exist. error: NULL or a Kafka error name (then
-- nothing is staged).
CREATE OR REPLACE FUNCTION queen.kafka_txn_stage_offsets_v1(p_tenant UUID, p_tid TEXT, p_pid BIGINT, p_epoch INT,
                                                            p_group TEXT, p_queues TEXT[], p_partitions TEXT[],
                                                            p_offsets BIGINT[])
RETURNS TABLE (error TEXT, queue_name TEXT, partition_name TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c RECORD;
BEGIN
    c := queen.kafka_txn_check_v1(p_tenant, p_tid, p_pid, p_epoch, FALSE);
    IF c.error IS NOT NULL THEN
        RETURN QUERY SELECT CASE WHEN c.error = 'PRODUCER_FENCED' THEN 'INVALID_PRODUCER_EPOCH' ELSE c.error END,
                            NULL::text, NULL::text;
        RETURN;
    END IF;
    IF (c.t).state <> 'Ongoing' OR NOT EXISTS (SELECT 1 FROM queen.kafka_txn_groups g
                                                WHERE g.producer_id = p_pid AND g.consumer_group = p_group) THEN
        RETURN QUERY SELECT 'INVALID_TXN_STATE'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    RETURN QUERY
    WITH ins AS (
        INSERT INTO queen.kafka_txn_offsets AS o (producer_id, consumer_group, queue_name, partition_name,
                                                  next_offset)
        SELECT DISTINCT ON (u.q, u.p) p_pid, p_group, u.q, u.p, u.o
          FROM unnest(p_queues, p_partitions, p_offsets) WITH ORDINALITY AS u(q, p, o, i)
          JOIN queen.kafka_topics_v1(p_tenant, p_queues) t ON t.name = u.q
         WHERE u.p ~ '^(0|[1-9][0-9]{0,9})$' AND u.p::bigint < t.partitions
         ORDER BY u.q, u.p, u.i DESC
        ON CONFLICT ON CONSTRAINT kafka_txn_offsets_pkey DO UPDATE SET next_offset = EXCLUDED.next_offset
        RETURNING o.queue_name AS q, o.partition_name AS p)
    SELECT NULL::text, ins.q, ins.p FROM ins;
END $$;

-- EndTxn, first step: locks the row and says what to do. action: 'run' (the transaction is open: the caller writes
-- the staged records, then calls kafka_txn_finish_v1 in the same PostgreSQL transaction), 'done' (a retry of an
-- EndTxn that completed the same way: answer success), or NULL with error set (a Kafka error name).
CREATE OR REPLACE FUNCTION queen.kafka_txn_end_v1(p_tenant UUID, p_tid TEXT, p_pid BIGINT, p_epoch INT,
                                                  p_commit BOOLEAN, OUT error TEXT, OUT action TEXT)
LANGUAGE sql AS $$
    SELECT COALESCE(c.error, CASE WHEN a.action IS NULL THEN 'INVALID_TXN_STATE' END), a.action
      FROM queen.kafka_txn_check_v1(p_tenant, p_tid, p_pid, p_epoch, TRUE) c,
           LATERAL (SELECT CASE WHEN c.error IS NOT NULL THEN NULL
                                WHEN (c.t).state = 'Ongoing' THEN 'run'
                                WHEN (c.t).state = (CASE WHEN p_commit THEN 'CompleteCommit' ELSE 'CompleteAbort' END)
                                    THEN 'done'
                           END AS action) a
$$;

-- The staged record batches of p_pid's open transaction, in (partition, producer sequence) order, each with the
-- id of its log partition when that exists (NULL: never written, created by the push).
CREATE OR REPLACE FUNCTION queen.kafka_txn_records_v1(p_tenant UUID, p_pid BIGINT)
RETURNS TABLE (queue_name TEXT, partition_name TEXT, partition_id UUID, record_count INT, hashes BYTEA,
               blob BYTEA)
LANGUAGE sql STABLE AS $$
    SELECT r.queue_name, r.partition_name, lp.id, r.record_count, r.hashes, r.blob
      FROM queen.kafka_txn_records r
      LEFT JOIN queen.queues q ON q.tenant_id = p_tenant AND q.name = r.queue_name
      LEFT JOIN queen.log_partitions lp ON lp.queue_id = q.id AND lp.name = r.partition_name
     WHERE r.producer_id = p_pid
     ORDER BY r.queue_name, r.partition_name, r.base_sequence
$$;

-- EndTxn, last step (after the records were pushed, same PostgreSQL transaction): on commit moves the staged
-- offsets into the groups' cursors (kafka_offset_commit_v1, one call per group); drops the staging either way and
-- marks the transaction complete.
CREATE OR REPLACE FUNCTION queen.kafka_txn_finish_v1(p_tenant UUID, p_pid BIGINT, p_commit BOOLEAN)
RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    g RECORD;
BEGIN
    IF p_commit THEN
        FOR g IN SELECT o.consumer_group, array_agg(o.queue_name) AS qs, array_agg(o.partition_name) AS ps,
                        array_agg(o.next_offset) AS os
                   FROM queen.kafka_txn_offsets o WHERE o.producer_id = p_pid
                  GROUP BY o.consumer_group ORDER BY o.consumer_group LOOP
            PERFORM queen.kafka_offset_commit_v1(p_tenant, g.consumer_group, g.qs, g.ps, g.os);
        END LOOP;
    END IF;
    PERFORM queen.kafka_txn_drop_staging_v1(p_pid);
    UPDATE queen.kafka_transactions
       SET state = CASE WHEN p_commit THEN 'CompleteCommit' ELSE 'CompleteAbort' END, started_at = NULL,
           staged_bytes = 0, updated_at = now()
     WHERE producer_id = p_pid;
END $$;

-- Aborts up to p_limit transactions open longer than their timeout and bumps their epochs, so the producers are
-- fenced (any broker may run it: rows another broker is working on are skipped); then forgets transactional ids
-- idle for p_expire_ms (Apache Kafka's transactional.id.expiration.ms). Answers how many were aborted.
CREATE OR REPLACE FUNCTION queen.kafka_txn_expire_v1(p_limit INT, p_expire_ms BIGINT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    n INT := 0;
BEGIN
    FOR r IN SELECT t.tenant_id, t.transactional_id, t.producer_id FROM queen.kafka_transactions t
              WHERE t.state = 'Ongoing' AND t.started_at + make_interval(secs => t.timeout_ms / 1000.0) < now()
              ORDER BY t.started_at LIMIT p_limit FOR UPDATE SKIP LOCKED LOOP
        PERFORM queen.kafka_txn_drop_staging_v1(r.producer_id);
        UPDATE queen.kafka_transactions SET state = 'CompleteAbort', started_at = NULL, staged_bytes = 0,
                                            updated_at = now()
         WHERE producer_id = r.producer_id;
        PERFORM queen.kafka_txn_bump_v1(r.tenant_id, r.transactional_id);
        n := n + 1;
    END LOOP;
    DELETE FROM queen.kafka_transactions t
     WHERE t.ctid IN (SELECT x.ctid FROM queen.kafka_transactions x
                       WHERE x.state <> 'Ongoing' AND x.updated_at < now() - make_interval(secs => p_expire_ms / 1000.0)
                       LIMIT p_limit FOR UPDATE SKIP LOCKED);
    RETURN n;
END $$;

-- The partitions of p_queues (NULL: every queue) on which an open transaction of the tenant has staged offsets
-- for p_group: OffsetFetch with requireStable answers them UNSTABLE_OFFSET_COMMIT.
CREATE OR REPLACE FUNCTION queen.kafka_txn_unstable_v1(p_tenant UUID, p_group TEXT, p_queues TEXT[])
RETURNS TABLE (queue_name TEXT, partition_name TEXT)
LANGUAGE sql STABLE AS $$
    SELECT DISTINCT o.queue_name, o.partition_name
      FROM queen.kafka_txn_offsets o
      JOIN queen.kafka_transactions t ON t.producer_id = o.producer_id
     WHERE o.consumer_group = p_group AND t.tenant_id = p_tenant AND t.state = 'Ongoing'
       AND (p_queues IS NULL OR o.queue_name = ANY (p_queues))
$$;

-- The tenant's transactional ids: all (p_tids NULL) or the named ones, with the partitions of their open
-- transaction (DescribeTransactions, ListTransactions).
CREATE OR REPLACE FUNCTION queen.kafka_txn_list_v1(p_tenant UUID, p_tids TEXT[])
RETURNS TABLE (transactional_id TEXT, producer_id BIGINT, epoch SMALLINT, state TEXT, timeout_ms INT,
               started_at TIMESTAMPTZ, queues TEXT[], partitions TEXT[])
LANGUAGE sql STABLE AS $$
    SELECT t.transactional_id, t.producer_id, t.epoch, t.state, t.timeout_ms, t.started_at,
           (SELECT array_agg(p.queue_name ORDER BY p.queue_name, p.partition_name)
              FROM queen.kafka_txn_partitions p WHERE p.producer_id = t.producer_id),
           (SELECT array_agg(p.partition_name ORDER BY p.queue_name, p.partition_name)
              FROM queen.kafka_txn_partitions p WHERE p.producer_id = t.producer_id)
      FROM queen.kafka_transactions t
     WHERE t.tenant_id = p_tenant AND (p_tids IS NULL OR t.transactional_id = ANY (p_tids))
     ORDER BY t.transactional_id
$$;
