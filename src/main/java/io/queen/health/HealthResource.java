package io.queen.health;

import io.agroal.api.AgroalDataSource;
import io.queen.auth.Access;
import io.queen.schema.SchemaApplier;
import io.queen.warmup.HotPathWarmup;
import io.queen.workers.WorkerRegistry;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code GET /health} in the shape the official clients read (API spec 3.13): 200 healthy, 503 unhealthy (the
 * database does not answer, or it was unreachable at boot and the schema is not applied yet, or the hot path's
 * warm-up has not run yet: {@link HotPathWarmup}).
 */
@Path("/health")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {
    private final AgroalDataSource dataSource;
    private final WorkerRegistry worker;
    private final SchemaApplier schema;
    private final HotPathWarmup warmup;
    private final String version;

    HealthResource(AgroalDataSource dataSource, WorkerRegistry worker, SchemaApplier schema,
            @Readiness HotPathWarmup warmup,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        this.dataSource = dataSource;
        this.worker = worker;
        this.schema = schema;
        this.warmup = warmup;
        this.version = version;
    }

    @Access(Access.Level.PUBLIC)
    @GET
    public Response health() {
        boolean db = databaseAnswers(dataSource);
        // healthy = can serve, as readiness says: a database reached after a failed boot is not served until the
        // schema is applied and the hot path warm
        boolean serving = db && schema.ready() && warmup.warm();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", serving ? "healthy" : "unhealthy");
        body.put("database", db ? "connected" : "disconnected");
        body.put("server", "queen-java");
        body.put("version", version);
        // which broker answered: its worker id (null until registered), host name and HTTP port
        Integer id = worker.workerIdOrNull();
        body.put("worker_id", id);
        body.put("hostname", worker.hostname());
        body.put("port", worker.port());
        body.put("shared_state", Map.of("enabled", false));
        Map<String, Object> queen = new LinkedHashMap<>();
        queen.put("worker_id", id);
        queen.put("status", "active");
        body.put("queen", queen);
        return Response.status(serving ? 200 : 503).entity(body).build();
    }

    static boolean databaseAnswers(AgroalDataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(2);
            s.execute("SELECT 1");
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
