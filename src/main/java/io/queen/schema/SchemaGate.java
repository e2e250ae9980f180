package io.queen.schema;

import io.queen.http.PipelineStage;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * While the schema is not applied (the database was unreachable at boot and the broker keeps retrying), API
 * routes ({@code /api/}, {@code /streams/}) answer 503 with the reason and {@code Retry-After: 1}, not a 500 from
 * a missing function. Health, metrics and OpenAPI stay served. Stateless; thread-safe.
 */
@ApplicationScoped
public class SchemaGate {
    private final SchemaApplier schema;

    SchemaGate(SchemaApplier schema) {
        this.schema = schema;
    }

    void init(@Observes Router router) {
        PipelineStage.SCHEMA_GATE.on(router.route()).handler(rc -> {
            String path = rc.normalizedPath();
            if (schema.ready() || !(path.startsWith("/api/") || path.startsWith("/streams/"))) {
                rc.next();
                return;
            }
            rc.response().setStatusCode(503).putHeader("Content-Type", "application/json")
                    .putHeader("Retry-After", "1")
                    .end(new JsonObject().put("error", "database not ready: " + schema.waitingFor()).encode());
        });
    }
}
