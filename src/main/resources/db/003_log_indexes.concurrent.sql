-- 003_log_indexes.concurrent.sql: statements that must run OUTSIDE any transaction (one per line-terminated
-- ';', no lock_timeout), because they arrive on an already-populated hot table. The applier drops an INVALID
-- leftover of an interrupted build before retrying it.

-- Retention work list, rule 1/2/3: partitions whose oldest live segment is older than a cutoff.
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_log_partitions_queue_oldest
    ON queen.log_partitions (queue_id, oldest_live_at) WHERE oldest_live_at IS NOT NULL;

-- Retention work list, sidecar purge: partitions whose oldest hash row is older than the txns cutoff.
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_log_partitions_queue_oldest_txn
    ON queen.log_partitions (queue_id, oldest_txn_at) WHERE oldest_txn_at IS NOT NULL;
