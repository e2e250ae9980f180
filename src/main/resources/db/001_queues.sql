-- 001_queues.sql: queue identity and configuration. Applied at every boot, idempotently.
CREATE SCHEMA IF NOT EXISTS queen;

-- One row per queue: identity (tenant_id, name) AND the full configuration. Partitions reference it by id,
-- so every partition-to-config join is by id. There is no engine-selector column: one engine; the wire
-- echoes storage "segments" as a literal.
CREATE TABLE IF NOT EXISTS queen.queues (
    id                          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name                        VARCHAR(255) NOT NULL,
    tenant_id                   UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001',
    namespace                   VARCHAR(255),
    task                        VARCHAR(255),
    priority                    INTEGER DEFAULT 0,
    -- 60 for a queue provisioned implicitly by a push; /configure writes 300 when leaseTime is omitted.
    -- One column, one truth: what the configuration shows is the lease pop grants.
    lease_time                  INTEGER DEFAULT 60,
    retry_limit                 INTEGER DEFAULT 3,
    retry_delay                 INTEGER DEFAULT 1000,
    ttl                         INTEGER DEFAULT 3600,
    dead_letter_queue           BOOLEAN DEFAULT TRUE,
    dlq_after_max_retries       BOOLEAN DEFAULT TRUE,
    delayed_processing          INTEGER DEFAULT 0,
    window_buffer               INTEGER DEFAULT 0,
    retention_seconds           INTEGER DEFAULT 0,
    completed_retention_seconds INTEGER DEFAULT 0,
    retention_enabled           BOOLEAN DEFAULT FALSE,
    encryption_enabled          BOOLEAN DEFAULT FALSE,
    max_wait_time_seconds       INTEGER DEFAULT 0,
    max_queue_size              INTEGER DEFAULT 0,
    min_pop_wait_time           INTEGER DEFAULT 0,
    -- push dedup probe window; 0 disables the probe (hashes are still written: ack needs them)
    dedup_window_seconds        INTEGER NOT NULL DEFAULT 3600,
    created_at                  TIMESTAMPTZ DEFAULT NOW()
);
CREATE UNIQUE INDEX IF NOT EXISTS queues_tenant_name_uk ON queen.queues (tenant_id, name);
CREATE INDEX IF NOT EXISTS idx_queues_name ON queen.queues (name);

-- Durable subscription start of a consumer group AND the "first contact seeded" marker.
CREATE TABLE IF NOT EXISTS queen.consumer_groups_metadata (
    id                     UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id              UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001',
    consumer_group         TEXT NOT NULL,
    queue_id               UUID REFERENCES queen.queues (id) ON DELETE CASCADE,
    partition_name         TEXT NOT NULL DEFAULT '',
    namespace              TEXT NOT NULL DEFAULT '',
    task                   TEXT NOT NULL DEFAULT '',
    subscription_mode      TEXT NOT NULL,
    subscription_timestamp TIMESTAMPTZ NOT NULL,
    created_at             TIMESTAMPTZ NOT NULL DEFAULT NOW()
);
-- NULLS NOT DISTINCT (PostgreSQL >= 15): discovery rows have queue_id NULL and must still be unique.
CREATE UNIQUE INDEX IF NOT EXISTS cgm_identity_uk ON queen.consumer_groups_metadata
    (tenant_id, consumer_group, queue_id, partition_name, namespace, task) NULLS NOT DISTINCT;
CREATE INDEX IF NOT EXISTS idx_cgm_queue ON queen.consumer_groups_metadata (queue_id);

-- What retention removed, so an operator can see it (no FK: survives the partition it describes).
CREATE TABLE IF NOT EXISTS queen.retention_history (
    id               BIGSERIAL PRIMARY KEY,
    partition_id     UUID,
    messages_deleted INTEGER,
    retention_type   VARCHAR(50),
    executed_at      TIMESTAMPTZ NOT NULL DEFAULT NOW()
);
CREATE INDEX IF NOT EXISTS idx_retention_history_executed_at ON queen.retention_history (executed_at);
