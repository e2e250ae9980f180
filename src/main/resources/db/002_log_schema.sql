-- 002_log_schema.sql: the log tables of the storage model (storage-model.md). Applied at every boot,
-- idempotently. Storage parameters are part of the design: do not strip them in a tuning pass.

-- One row per partition: the write serializer (the allocator UPDATE of last_offset runs under this row's
-- lock) plus three offset watermarks and the two retention work-list timestamps derived from them.
CREATE TABLE IF NOT EXISTS queen.log_partitions (
    id            UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    queue_id      UUID NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
    name          TEXT NOT NULL DEFAULT 'Default',
    last_offset   BIGINT NOT NULL DEFAULT -1,          -- allocator: next base = last_offset + 1
    log_start     BIGINT NOT NULL DEFAULT 0,           -- first live offset (retention watermark)
    txns_start    BIGINT NOT NULL DEFAULT 0,           -- first offset still in log_txns (purge watermark)
    last_write_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),  -- quantized to 1 s: it is indexed (HOT updates)
    created_at    TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    UNIQUE (queue_id, name)
);
-- Retention work list: NULL = nothing live / sidecar fully purged. Each is moved in the same transaction,
-- under the same row lock, as the watermark it mirrors; push fills them only on empty -> non-empty.
ALTER TABLE queen.log_partitions ADD COLUMN IF NOT EXISTS oldest_live_at TIMESTAMPTZ;
ALTER TABLE queen.log_partitions ADD COLUMN IF NOT EXISTS oldest_txn_at TIMESTAMPTZ;
-- Every push updates this row, so dead tuples dwarf the live ones between vacuums: threshold-triggered
-- vacuum that re-fires under churn, room for HOT updates, and NO heap truncation (its ACCESS EXCLUSIVE lock
-- froze every push and pop for seconds while reclaiming nothing on a fixed row population).
ALTER TABLE queen.log_partitions SET (
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 500,
    autovacuum_vacuum_cost_delay = 0,
    vacuum_truncate = off
);
-- Lets a wildcard pop range-scan recently written partitions instead of the whole set.
CREATE INDEX IF NOT EXISTS idx_log_partitions_queue_write ON queen.log_partitions (queue_id, last_write_at);
-- The two partial work-list indexes are built CONCURRENTLY (003_log_indexes.concurrent.sql): they arrive on
-- an already-populated hot table.

-- The messages: many length-prefixed frames per row, zstd-compressed together, covering the inclusive
-- offset range [base_offset, end_offset]. The primary key is also the pop path, so there is NO secondary
-- index on this table. Rows are never updated: push inserts, retention deletes.
CREATE TABLE IF NOT EXISTS queen.log_segments (
    partition_id UUID NOT NULL REFERENCES queen.log_partitions (id) ON DELETE CASCADE,
    base_offset  BIGINT NOT NULL,
    end_offset   BIGINT NOT NULL,       -- inclusive; msg_count = end - base + 1
    created_at   TIMESTAMPTZ NOT NULL,  -- stamped under the partition row lock: monotone per partition
    blob         BYTEA NOT NULL,
    PRIMARY KEY (partition_id, base_offset)
);
-- The broker already compressed the blob: TOAST must not spend CPU trying again. Changing storage takes an
-- ACCESS EXCLUSIVE lock, so only do it when it is not already EXTERNAL (boot must not stall a live broker).
DO $$
BEGIN
    IF (SELECT attstorage FROM pg_attribute
         WHERE attrelid = 'queen.log_segments'::regclass AND attname = 'blob') <> 'e' THEN
        ALTER TABLE queen.log_segments ALTER COLUMN blob SET STORAGE EXTERNAL;
    END IF;
END $$;
-- Set by measurement (reference, 2026-07): 0.02 / 0.05 re-fired vacuum every ~13 s at 1M msg/s and competed
-- for I/O at peak; 0.1 / 0.3 still keeps pace with retention churn (heap plateaus through slot reuse).
-- Cost limit 4000 + delay 0 make each pass short. The blob bytes live in TOAST: same values with toast.
ALTER TABLE queen.log_segments SET (
    autovacuum_vacuum_scale_factor = 0.1,
    autovacuum_vacuum_insert_scale_factor = 0.3,
    autovacuum_vacuum_cost_limit = 4000,
    autovacuum_vacuum_cost_delay = 0,
    toast.autovacuum_vacuum_scale_factor = 0.1,
    toast.autovacuum_vacuum_insert_scale_factor = 0.3,
    toast.autovacuum_vacuum_cost_limit = 4000,
    toast.autovacuum_vacuum_cost_delay = 0
);

-- The hash sidecar: one row per segment, mirroring its range, 16 bytes (xxh3-128 big-endian of the
-- transaction id, computed by the broker) per frame in frame order. Dedup and ack-by-id go through it.
-- Deliberately NO foreign key: the purge path must not pay FK trigger cost. Obligation: whatever deletes a
-- partition deletes these rows itself first (partition cleanup, queue delete).
CREATE TABLE IF NOT EXISTS queen.log_txns (
    partition_id UUID NOT NULL,
    base_offset  BIGINT NOT NULL,
    end_offset   BIGINT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,  -- same stamp as its segment
    hashes       BYTEA NOT NULL,
    PRIMARY KEY (partition_id, base_offset)
);
ALTER TABLE queen.log_txns SET (
    autovacuum_vacuum_scale_factor = 0.1,
    autovacuum_vacuum_insert_scale_factor = 0.3,
    autovacuum_vacuum_cost_delay = 0
);

-- The whole consumption model: one cursor row per (partition, consumer group). A leased batch is the span
-- (committed, batch_end]; one row holds at most one lease, hence one in-flight batch per (partition, group).
-- batch_retry_count is the retry budget (explicit failures only); attempt_count is telemetry (lease expiry
-- must not eat the budget an explicit failure is entitled to).
CREATE TABLE IF NOT EXISTS queen.log_consumers (
    partition_id      UUID NOT NULL REFERENCES queen.log_partitions (id) ON DELETE CASCADE,
    consumer_group    TEXT NOT NULL DEFAULT '__QUEUE_MODE__',
    committed         BIGINT NOT NULL DEFAULT -1,   -- last acked offset
    batch_end         BIGINT,                       -- inclusive end of the leased batch; NULL = no lease
    worker_id         TEXT,                         -- = leaseId
    lease_expires_at  TIMESTAMPTZ,
    lease_acquired_at TIMESTAMPTZ,
    batch_retry_count INTEGER NOT NULL DEFAULT 0,
    attempt_offset    BIGINT,
    attempt_count     INTEGER NOT NULL DEFAULT 0,
    total_consumed    BIGINT NOT NULL DEFAULT 0,
    lease_conflated   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT NOW(),  -- load-bearing for the partition-cleanup veto
    PRIMARY KEY (partition_id, consumer_group)
);
-- Same churn and truncation-lock reasoning as log_partitions; every pop and ack updates these rows.
ALTER TABLE queen.log_consumers SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 500,
    autovacuum_vacuum_cost_delay = 0,
    vacuum_truncate = off
);

-- Dead letters: the one per-message table. The payload is a snapshot, not a pointer, and there is NO
-- foreign key: a dead letter survives the retention that deletes its source segment, and partition cleanup
-- refuses to reclaim a partition that still holds one. Queue delete removes these rows explicitly.
CREATE TABLE IF NOT EXISTS queen.log_dlq (
    id             UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    partition_id   UUID NOT NULL,
    consumer_group TEXT NOT NULL,
    "offset"       BIGINT NOT NULL,
    message_id     UUID,
    transaction_id TEXT,
    payload        JSONB,
    error          TEXT,
    retry_count    INTEGER DEFAULT 0,   -- batch_retry_count when filed
    failed_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
ALTER TABLE queen.log_dlq ADD COLUMN IF NOT EXISTS trace_id UUID;
ALTER TABLE queen.log_dlq ADD COLUMN IF NOT EXISTS producer_sub TEXT;
ALTER TABLE queen.log_dlq ADD COLUMN IF NOT EXISTS message_created_at TIMESTAMPTZ;
-- The message's key (frame flag 32, as stored: an encryption envelope where the payload snapshot is one), so a
-- replay writes it back keyed; a Kafka record keeps its key inside its payload snapshot instead.
ALTER TABLE queen.log_dlq ADD COLUMN IF NOT EXISTS message_key BYTEA;
-- What DLQ browse and depth queries scan.
CREATE INDEX IF NOT EXISTS idx_log_dlq_partition_failed_at ON queen.log_dlq (partition_id, failed_at DESC);

-- Explodes a 16-byte-stride hash blob into (idx, hash), idx zero-based. IMMUTABLE pure byte slicing so the
-- planner can inline it; the dedup probe and ack-by-hash both join through it.
CREATE OR REPLACE FUNCTION queen.log_unnest_hashes(p BYTEA)
RETURNS TABLE (idx INT, h BYTEA)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT g::int, substring(p FROM g * 16 + 1 FOR 16)
      FROM generate_series(0, octet_length(p) / 16 - 1) AS g
$$;
