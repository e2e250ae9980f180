-- 016_maintenance.sql: the cluster-wide maintenance switches (GET/POST /api/v1/system/maintenance[/pop]). One row
-- per switch; every broker reads them every queen.maintenance.poll-ms (a primary-key read), so a switch reaches
-- the whole cluster within that interval without any broker-to-broker channel.
CREATE TABLE IF NOT EXISTS queen.system_switches (
    name       TEXT PRIMARY KEY,          -- 'push_maintenance' | 'pop_maintenance'
    enabled    BOOLEAN NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Both switches (absent row = off).
CREATE OR REPLACE FUNCTION queen.maintenance_get_v1(OUT push_enabled BOOLEAN, OUT pop_enabled BOOLEAN,
                                                    OUT updated_at TIMESTAMPTZ)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    -- plpgsql keeps the plan across calls (every broker polls this); a SQL function is planned at each call
    SELECT COALESCE(bool_or(s.enabled) FILTER (WHERE s.name = 'push_maintenance'), FALSE),
           COALESCE(bool_or(s.enabled) FILTER (WHERE s.name = 'pop_maintenance'), FALSE),
           max(s.updated_at)
      INTO push_enabled, pop_enabled, updated_at
      FROM queen.system_switches s;
END $$;

-- Sets one switch; returns its previous value (FALSE when it was never set).
CREATE OR REPLACE FUNCTION queen.maintenance_set_v1(p_name TEXT, p_enabled BOOLEAN)
RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    v_old BOOLEAN;
BEGIN
    IF p_name NOT IN ('push_maintenance', 'pop_maintenance') THEN
        RAISE EXCEPTION 'QMAINT unknown switch %', p_name;
    END IF;
    SELECT s.enabled INTO v_old FROM queen.system_switches s WHERE s.name = p_name FOR UPDATE;
    INSERT INTO queen.system_switches AS s (name, enabled, updated_at) VALUES (p_name, p_enabled, now())
    ON CONFLICT (name) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at;
    RETURN COALESCE(v_old, FALSE);
END $$;
