-- 024_kafka_cluster.sql: the Kafka cluster view over several brokers sharing this database (io.queen.kafka.cluster,
-- docs/kafka.md "Several brokers"): which brokers are live under which Kafka node id, and the state of each classic
-- consumer group as of its last completed rebalance, so whichever broker coordinates a group next continues it.
-- Times are the database's (now()): brokers' clocks never meet. Applied at every boot, idempotently.

-- One row per Kafka node id ever used (ids are kept, so a broker that comes back at the same address gets its old
-- id). A broker is live while expires_at is in the future: every heartbeat pushes it on by the session timeout,
-- a graceful stop sets it to now(), a killed broker's row simply runs out.
CREATE TABLE IF NOT EXISTS queen.kafka_brokers (
    node_id    INT PRIMARY KEY CHECK (node_id >= 0),
    instance   UUID NOT NULL,              -- the process holding the id (random per start)
    host       TEXT NOT NULL,              -- advertised host and port: what Metadata hands out
    port       INT NOT NULL,
    rack       TEXT,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL
);

-- A starting broker takes its node id: p_node when configured, else the id last held at the same advertised
-- address, else one above the highest id ever used (at least 1). Refused (SQLSTATE QK001) when the id is held by a
-- live broker at another address: two brokers must never share an id. A live row at the same address is a
-- restarted broker replacing its killed predecessor and is taken over. Serialized by an advisory lock, so two
-- brokers starting together never draw the same id. Cost: a scan of the (small) table.
CREATE OR REPLACE FUNCTION queen.kafka_broker_join_v1(p_node INT, p_instance UUID, p_host TEXT, p_port INT,
                                                      p_rack TEXT, p_session_ms INT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_node INT := p_node;
    v_held queen.kafka_brokers;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('queen.kafka_brokers'));
    IF v_node IS NULL THEN
        SELECT b.node_id INTO v_node FROM queen.kafka_brokers b
         WHERE b.host = p_host AND b.port = p_port
         ORDER BY b.expires_at DESC LIMIT 1;
    END IF;
    IF v_node IS NULL THEN
        SELECT GREATEST(COALESCE(max(b.node_id), 0) + 1, 1) INTO v_node FROM queen.kafka_brokers b;
    END IF;
    SELECT * INTO v_held FROM queen.kafka_brokers b WHERE b.node_id = v_node;
    IF FOUND AND v_held.expires_at > now() AND v_held.instance <> p_instance
       AND (v_held.host <> p_host OR v_held.port <> p_port) THEN
        RAISE EXCEPTION 'Kafka node id % is held by the live broker at %:%', v_node, v_held.host, v_held.port
            USING ERRCODE = 'QK001';
    END IF;
    INSERT INTO queen.kafka_brokers AS b (node_id, instance, host, port, rack, started_at, expires_at)
    VALUES (v_node, p_instance, p_host, p_port, p_rack, now(), now() + make_interval(secs => p_session_ms / 1000.0))
    ON CONFLICT (node_id) DO UPDATE
       SET instance = EXCLUDED.instance, host = EXCLUDED.host, port = EXCLUDED.port, rack = EXCLUDED.rack,
           started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at;
    RETURN v_node;
END $$;

-- A broker's heartbeat: its row lives p_session_ms more while it still belongs to p_instance (a row taken over by
-- another process, a restart at the same address, is left alone). Answers the live brokers by node id, mine marking
-- the caller's own row: an answer without it tells the caller it no longer holds its id. Cost: one primary-key
-- update and a scan of the (small) table.
DROP FUNCTION IF EXISTS queen.kafka_broker_heartbeat_v1(INT, UUID, INT);
CREATE FUNCTION queen.kafka_broker_heartbeat_v1(p_node INT, p_instance UUID, p_session_ms INT)
RETURNS TABLE (node_id INT, host TEXT, port INT, rack TEXT, mine BOOLEAN)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    UPDATE queen.kafka_brokers b SET expires_at = now() + make_interval(secs => p_session_ms / 1000.0)
     WHERE b.node_id = p_node AND b.instance = p_instance;
    RETURN QUERY SELECT b.node_id, b.host, b.port, b.rack, b.instance = p_instance AND b.node_id = p_node
                   FROM queen.kafka_brokers b
                  WHERE b.expires_at > now() ORDER BY b.node_id;
END $$;

-- A broker stopping gracefully: its row expires now (the id stays reserved for its address).
CREATE OR REPLACE FUNCTION queen.kafka_broker_leave_v1(p_node INT, p_instance UUID)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH gone AS (UPDATE queen.kafka_brokers b SET expires_at = now()
                   WHERE b.node_id = p_node AND b.instance = p_instance AND b.expires_at > now() RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM gone)
$$;

-- A classic group's state as of its coordinator's last save (each completed join phase and each assignment):
-- generation, protocol, leader and members (JSON array: memberId, instanceId, clientId, clientHost,
-- sessionTimeoutMs, rebalanceTimeoutMs, protocols [{name, metadata base64}], assignment base64). version counts
-- the saves: a coordinator saves only over the version it loaded or last saved, so two brokers that both believe
-- they coordinate a group can never move it apart, and its generation never goes backwards.
CREATE TABLE IF NOT EXISTS queen.kafka_groups (
    tenant_id     UUID NOT NULL,
    group_id      TEXT NOT NULL,
    version       BIGINT NOT NULL,
    generation    INT NOT NULL,
    state         TEXT NOT NULL,            -- Empty, CompletingRebalance (assignment not yet handed out) or Stable
    protocol_type TEXT,
    protocol_name TEXT,
    leader_id     TEXT,
    members       JSONB NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, group_id)
);

-- The group's saved state, if any.
CREATE OR REPLACE FUNCTION queen.kafka_group_load_v1(p_tenant UUID, p_group TEXT)
RETURNS TABLE (version BIGINT, generation INT, state TEXT, protocol_type TEXT, protocol_name TEXT, leader_id TEXT,
               members TEXT)
LANGUAGE sql STABLE AS $$
    SELECT g.version, g.generation, g.state, g.protocol_type, g.protocol_name, g.leader_id, g.members::text
      FROM queen.kafka_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group
$$;

-- Saves a group over version p_expected (0: no saved state yet). Answers the new version, or NULL when the saved
-- state is not p_expected any more (another broker coordinated the group meanwhile, or it was deleted): the
-- caller's copy is stale and must be dropped. Cost: one primary-key upsert.
CREATE OR REPLACE FUNCTION queen.kafka_group_save_v1(p_tenant UUID, p_group TEXT, p_expected BIGINT,
                                                     p_generation INT, p_state TEXT, p_protocol_type TEXT,
                                                     p_protocol_name TEXT, p_leader TEXT, p_members TEXT)
RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    v_version BIGINT;
BEGIN
    IF p_expected = 0 THEN
        INSERT INTO queen.kafka_groups (tenant_id, group_id, version, generation, state, protocol_type,
                                        protocol_name, leader_id, members)
        VALUES (p_tenant, p_group, 1, p_generation, p_state, p_protocol_type, p_protocol_name, p_leader,
                p_members::jsonb)
        ON CONFLICT (tenant_id, group_id) DO NOTHING
        RETURNING version INTO v_version;
    ELSE
        UPDATE queen.kafka_groups g
           SET version = g.version + 1, generation = p_generation, state = p_state,
               protocol_type = p_protocol_type, protocol_name = p_protocol_name, leader_id = p_leader,
               members = p_members::jsonb, updated_at = now()
         WHERE g.tenant_id = p_tenant AND g.group_id = p_group AND g.version = p_expected
           AND g.generation <= p_generation
        RETURNING g.version INTO v_version;
    END IF;
    RETURN v_version;
END $$;

-- Forgets a group's saved state (DeleteGroups of an empty group).
CREATE OR REPLACE FUNCTION queen.kafka_group_delete_v1(p_tenant UUID, p_group TEXT)
RETURNS BOOLEAN
LANGUAGE sql AS $$
    WITH gone AS (DELETE FROM queen.kafka_groups g WHERE g.tenant_id = p_tenant AND g.group_id = p_group
                  RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM gone)
$$;
