-- 025_workers.sql: each broker's worker id (io.queen.workers.WorkerRegistry), the label of its per-minute metric
-- rows (db/015_metrics.sql), its live row (db/020_live.sql) and /health. Ids are unique without configuration: a
-- broker takes the id its host name and HTTP port held before (a restart keeps its metric series), else one above
-- the highest ever used; two brokers on one host (different ports) never share one. Applied at every boot.

-- One row per worker id ever used.
CREATE TABLE IF NOT EXISTS queen.workers (
    worker_id  INT PRIMARY KEY CHECK (worker_id >= 0),
    hostname   TEXT NOT NULL,
    port       INT NOT NULL,
    instance   UUID NOT NULL,              -- the process holding the id now (random per start)
    started_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A starting broker takes its worker id: p_worker when configured (QUEEN_WORKER_ID), else the id last held at the
-- same host name and port, else one above the highest id ever used (at least 1). Serialized by an advisory lock, so
-- two brokers starting together never draw the same id. Cost: a scan of the (small) table.
CREATE OR REPLACE FUNCTION queen.worker_join_v1(p_worker INT, p_instance UUID, p_hostname TEXT, p_port INT)
RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
    v_worker INT := p_worker;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('queen.workers'));
    IF v_worker IS NULL THEN
        SELECT w.worker_id INTO v_worker FROM queen.workers w
         WHERE w.hostname = p_hostname AND w.port = p_port
         ORDER BY w.started_at DESC LIMIT 1;
    END IF;
    IF v_worker IS NULL THEN
        SELECT GREATEST(COALESCE(max(w.worker_id), 0) + 1, 1) INTO v_worker FROM queen.workers w;
    END IF;
    INSERT INTO queen.workers AS w (worker_id, hostname, port, instance, started_at)
    VALUES (v_worker, p_hostname, p_port, p_instance, now())
    ON CONFLICT (worker_id) DO UPDATE
       SET hostname = EXCLUDED.hostname, port = EXCLUDED.port, instance = EXCLUDED.instance,
           started_at = EXCLUDED.started_at;
    RETURN v_worker;
END $$;
