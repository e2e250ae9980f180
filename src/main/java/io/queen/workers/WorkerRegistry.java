package io.queen.workers;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.background.DaemonTimer;
import io.queen.background.OutageWarning;
import io.queen.config.QueenConfig;
import io.queen.metrics.ProcessStats;
import io.queen.schema.SchemaApplier;
import io.queen.sql.SqlCalls;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.SQLException;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/**
 * This broker's worker id, the label of its per-minute metric rows and live row and what {@code /health} reports:
 * {@code QUEEN_WORKER_ID} when set, else registered in the database ({@code queen.worker_join_v1},
 * db/025_workers.sql) under its host name and HTTP port, so that brokers sharing a host never share an id and a
 * restarted broker keeps its own. Identity is (host name, HTTP port): brokers on different machines that report the
 * same host name need {@code QUEEN_HOSTNAME} or {@code QUEEN_WORKER_ID}.
 *
 * <p>It registers once the schema is applied (at boot, or when a database that was away answers), retrying every
 * second while the database refuses; until then {@link #workerId()} is the configured id or empty, and metric rows
 * wait. Thread-safety: the id is one volatile field, written once by the registering thread.
 */
@ApplicationScoped
public class WorkerRegistry {
    private static final Logger LOG = Logger.getLogger(WorkerRegistry.class);
    private static final long RETRY_MS = 1000;

    private final SqlCalls sql;
    private final SchemaApplier schema;
    private final ProcessStats process;
    private final OptionalInt configured;
    private final UUID instance = UUID.randomUUID();
    private final OutageWarning outage = new OutageWarning(LOG);
    private volatile Integer registered;
    private volatile ScheduledExecutorService retry;

    WorkerRegistry(SqlCalls sql, SchemaApplier schema, ProcessStats process, QueenConfig config) {
        this.sql = sql;
        this.schema = schema;
        this.process = process;
        this.configured = config.workerId();
    }

    /** Right after the schema (priority 1): the metric and live publishers that label rows with the id come later. */
    void start(@Observes @Priority(2) StartupEvent event) {
        schema.whenReady().thenRun(() -> {
            if (!outage.attempt(this::register, "worker id not registered yet")) {
                retry = DaemonTimer.every("queen-worker-register", RETRY_MS, () -> {
                    if (registered == null && outage.attempt(this::register, "worker id not registered yet")) {
                        retry.shutdown();
                    }
                });
            }
        });
    }

    void stop(@Observes ShutdownEvent event) {
        ScheduledExecutorService r = retry;
        if (r != null) {
            r.shutdownNow();
        }
    }

    private void register() throws SQLException {
        Integer wanted = configured.isPresent() ? configured.getAsInt() : null;
        int id = (int) sql.number("SELECT queen.worker_join_v1(?, ?, ?, ?)", wanted, instance, process.hostname(),
                process.port());
        registered = id;
        LOG.infof("worker id %d (%s:%d%s)", id, process.hostname(), process.port(),
                wanted == null ? "" : ", QUEEN_WORKER_ID");
    }

    /** The worker id: registered, else the configured one, else empty (not registered yet). */
    public OptionalInt workerId() {
        Integer r = registered;
        return r != null ? OptionalInt.of(r) : configured;
    }

    /** The worker id, or null before it is known (for JSON answers). */
    public Integer workerIdOrNull() {
        OptionalInt id = workerId();
        return id.isPresent() ? id.getAsInt() : null;
    }

    /** This broker's host name as its metric rows name it. */
    public String hostname() {
        return process.hostname();
    }

    /** This broker's HTTP port. */
    public int port() {
        return process.port();
    }
}
