-- 028_kafka_consumer_groups.sql: consumer-protocol (KIP-848) Kafka groups, so the next coordinator continues a group
-- where the last one left it. One row per group: its epoch and its state as a JSON document (assignment epoch,
-- target assignment, members with their epochs, subscriptions and owned partitions). version counts the saves: a
-- coordinator saves only over the version it loaded or last saved, so two brokers that both believe they coordinate
-- a group never move it apart, and its epoch never goes backwards. Applied at every boot, idempotently.
CREATE TABLE IF NOT EXISTS queen.kafka_consumer_groups (
    tenant_id   UUID NOT NULL,
    group_id    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    group_epoch INT NOT NULL,
    state       JSONB NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, group_id)
);

-- The group's saved state, if any.
CREATE OR REPLACE FUNCTION queen.kafka_consumer_group_load_v1(p_tenant UUID, p_group TEXT)
RETURNS TABLE (version BIGINT, state TEXT)
LANGUAGE sql STABLE AS $$
    SELECT g.version, g.state::text
      FROM queen.kafka_consumer_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group
$$;

-- Saves a group over version p_expected (0: no saved state yet). Answers the new version, or NULL when the saved
-- state is not p_expected any more (another broker coordinated the group meanwhile, or it was deleted): the
-- caller's copy is stale and must be dropped. Cost: one primary-key upsert.
CREATE OR REPLACE FUNCTION queen.kafka_consumer_group_save_v1(p_tenant UUID, p_group TEXT, p_expected BIGINT,
                                                              p_epoch INT, p_state TEXT)
RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    v_version BIGINT;
BEGIN
    IF p_expected = 0 THEN
        INSERT INTO queen.kafka_consumer_groups (tenant_id, group_id, version, group_epoch, state)
        VALUES (p_tenant, p_group, 1, p_epoch, p_state::jsonb)
        ON CONFLICT (tenant_id, group_id) DO NOTHING
        RETURNING version INTO v_version;
    ELSE
        UPDATE queen.kafka_consumer_groups g
           SET version = g.version + 1, group_epoch = p_epoch, state = p_state::jsonb, updated_at = now()
         WHERE g.tenant_id = p_tenant AND g.group_id = p_group AND g.version = p_expected
           AND g.group_epoch <= p_epoch
        RETURNING g.version INTO v_version;
    END IF;
    RETURN v_version;
END $$;

-- Forgets a group's saved state (its last member left, or DeleteGroups).
CREATE OR REPLACE FUNCTION queen.kafka_consumer_group_delete_v1(p_tenant UUID, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH gone AS (DELETE FROM queen.kafka_consumer_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group
                  RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM gone)
$$;
