-- 018_storage_checks.sql: the storage invariants of storage-model.md as one diagnostic query. It reads every
-- segment header, sidecar row and cursor (O(rows), no blob is read): a tool for tests and for an operator
-- investigating a suspected inconsistency, never for a hot path. No row = every invariant holds.
--   segment_ranges   live segments are disjoint and contiguous from log_start to last_offset (invariants 1, 3)
--   created_at       created_at is monotone per partition (invariant 2)
--   sidecar          sidecar rows are contiguous from txns_start to last_offset, each mirrors the segment of the
--                    same range while that segment lives, 16 bytes per frame
--   cursor_range     batch_end/lease columns consistent; committed <= last_offset; committed >= log_start - 1
--                    unless time retention, max-wait eviction or a Kafka DeleteRecords deleted unconsumed data
--                    here (then a lagging cursor is by design: invariant 4, gaps are skipped)
--   watermark        oldest_live_at / oldest_txn_at equal the created_at of the first live segment / sidecar row
--   orphan           sidecar, dead-letter or trace rows of a partition that does not exist
CREATE OR REPLACE FUNCTION queen.storage_invariant_violations_v1()
RETURNS TABLE (invariant TEXT, partition_id UUID, detail TEXT)
LANGUAGE sql STABLE AS $$
    WITH seg AS (
        SELECT s.partition_id, s.base_offset, s.end_offset, s.created_at,
               lag(s.end_offset) OVER w AS prev_end, lag(s.created_at) OVER w AS prev_created,
               row_number() OVER w AS rn, count(*) OVER (PARTITION BY s.partition_id) AS n
          FROM queen.log_segments s
        WINDOW w AS (PARTITION BY s.partition_id ORDER BY s.base_offset)),
    txn AS (
        SELECT t.partition_id, t.base_offset, t.end_offset, t.created_at, octet_length(t.hashes) AS bytes,
               lag(t.end_offset) OVER w AS prev_end, row_number() OVER w AS rn,
               count(*) OVER (PARTITION BY t.partition_id) AS n
          FROM queen.log_txns t
        WINDOW w AS (PARTITION BY t.partition_id ORDER BY t.base_offset))
    -- segments: first base = log_start, next base = previous end + 1, last end = last_offset, base <= end
    SELECT 'segment_ranges', s.partition_id,
           format('segment [%s, %s]: prev end %s, log_start %s, last_offset %s', s.base_offset, s.end_offset,
                  s.prev_end, lp.log_start, lp.last_offset)
      FROM seg s JOIN queen.log_partitions lp ON lp.id = s.partition_id
     WHERE s.end_offset < s.base_offset
        OR (s.rn = 1 AND s.base_offset <> lp.log_start)
        OR (s.rn > 1 AND s.base_offset <> s.prev_end + 1)
        OR (s.rn = s.n AND s.end_offset <> lp.last_offset)
    UNION ALL
    SELECT 'segment_ranges', lp.id, format('no segment: log_start %s, last_offset %s', lp.log_start, lp.last_offset)
      FROM queen.log_partitions lp
     WHERE lp.log_start <> lp.last_offset + 1
       AND NOT EXISTS (SELECT 1 FROM queen.log_segments s WHERE s.partition_id = lp.id)
    UNION ALL
    SELECT 'created_at', s.partition_id,
           format('segment %s created %s before its predecessor (%s)', s.base_offset, s.created_at, s.prev_created)
      FROM seg s WHERE s.rn > 1 AND s.created_at < s.prev_created
    UNION ALL
    SELECT 'sidecar', t.partition_id,
           format('sidecar [%s, %s] (%s bytes): prev end %s, txns_start %s, last_offset %s', t.base_offset,
                  t.end_offset, t.bytes, t.prev_end, lp.txns_start, lp.last_offset)
      FROM txn t JOIN queen.log_partitions lp ON lp.id = t.partition_id
     WHERE t.bytes <> 16 * (t.end_offset - t.base_offset + 1)
        OR (t.rn = 1 AND t.base_offset <> lp.txns_start)
        OR (t.rn > 1 AND t.base_offset <> t.prev_end + 1)
        OR (t.rn = t.n AND t.end_offset <> lp.last_offset)
    UNION ALL
    SELECT 'sidecar', lp.id, format('no sidecar row: txns_start %s, last_offset %s', lp.txns_start, lp.last_offset)
      FROM queen.log_partitions lp
     WHERE lp.txns_start <> lp.last_offset + 1
       AND NOT EXISTS (SELECT 1 FROM queen.log_txns t WHERE t.partition_id = lp.id)
    UNION ALL
    SELECT 'sidecar', s.partition_id, format('segment [%s, %s] has no mirroring sidecar row', s.base_offset,
                                             s.end_offset)
      FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id
     WHERE s.base_offset >= lp.txns_start
       AND NOT EXISTS (SELECT 1 FROM queen.log_txns t
                        WHERE t.partition_id = s.partition_id AND t.base_offset = s.base_offset
                          AND t.end_offset = s.end_offset AND t.created_at = s.created_at)
    UNION ALL
    SELECT 'cursor_range', c.partition_id,
           format('group %s: committed %s, batch_end %s, worker %s, lease %s; log_start %s, last_offset %s',
                  c.consumer_group, c.committed, c.batch_end, c.worker_id, c.lease_expires_at, lp.log_start,
                  lp.last_offset)
      FROM queen.log_consumers c JOIN queen.log_partitions lp ON lp.id = c.partition_id
     WHERE c.committed < -1 OR c.committed > lp.last_offset
        OR ((c.batch_end IS NULL) <> (c.worker_id IS NULL))
        OR ((c.batch_end IS NULL) <> (c.lease_expires_at IS NULL))
        OR (c.batch_end IS NOT NULL AND (c.batch_end <= c.committed OR c.batch_end > lp.last_offset))
        OR (c.committed < lp.log_start - 1
            AND NOT EXISTS (SELECT 1 FROM queen.retention_history h
                             WHERE h.partition_id = c.partition_id
                               AND h.retention_type IN ('retention', 'max_wait_time_eviction', 'delete_records')))
    UNION ALL
    SELECT 'watermark', lp.id,
           format('oldest_live_at %s, first segment created %s; oldest_txn_at %s, first sidecar row created %s',
                  lp.oldest_live_at, fs.created_at, lp.oldest_txn_at, ft.created_at)
      FROM queen.log_partitions lp
      LEFT JOIN LATERAL (SELECT s.created_at FROM queen.log_segments s WHERE s.partition_id = lp.id
                          ORDER BY s.base_offset LIMIT 1) fs ON TRUE
      LEFT JOIN LATERAL (SELECT t.created_at FROM queen.log_txns t WHERE t.partition_id = lp.id
                          ORDER BY t.base_offset LIMIT 1) ft ON TRUE
     WHERE lp.oldest_live_at IS DISTINCT FROM fs.created_at OR lp.oldest_txn_at IS DISTINCT FROM ft.created_at
    UNION ALL
    SELECT 'orphan', o.partition_id, format('%s %s rows of a partition that does not exist', o.n, o.tbl)
      FROM (SELECT t.partition_id, 'log_txns' AS tbl, count(*) AS n FROM queen.log_txns t
             WHERE NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.id = t.partition_id)
             GROUP BY t.partition_id
            UNION ALL
            SELECT d.partition_id, 'log_dlq', count(*) FROM queen.log_dlq d
             WHERE NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.id = d.partition_id)
             GROUP BY d.partition_id
            UNION ALL
            SELECT m.partition_id, 'message_traces', count(*) FROM queen.message_traces m
             WHERE NOT EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.id = m.partition_id)
             GROUP BY m.partition_id) o
$$;
