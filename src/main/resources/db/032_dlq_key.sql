-- 032_dlq_key.sql: a dead letter keeps its message's key (frame flag 32: an HTTP push item's key, an encryption
-- envelope where the payload snapshot is one), so a replay writes the message back keyed and log compaction goes
-- on treating it as such. A Kafka record keeps its key inside its payload snapshot instead. Applied at every boot,
-- idempotently.

ALTER TABLE queen.log_dlq ADD COLUMN IF NOT EXISTS message_key BYTEA;

-- Sets the key of a dead letter, in the transaction that filed it (only a keyed message's filing calls it, so an
-- unkeyed one costs nothing more).
CREATE OR REPLACE FUNCTION queen.log_dlq_set_key_v1(p_id UUID, p_key BYTEA)
RETURNS VOID
LANGUAGE sql AS $$
    UPDATE queen.log_dlq SET message_key = p_key WHERE id = p_id
$$;

-- The key a dead letter keeps (its tenant checked by the caller's read of the row); NULL without one.
CREATE OR REPLACE FUNCTION queen.log_dlq_key_v1(p_id UUID)
RETURNS BYTEA
LANGUAGE sql STABLE AS $$
    SELECT d.message_key FROM queen.log_dlq d WHERE d.id = p_id
$$;
