package io.queen.schema;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Readiness is DOWN until the schema is applied, with the reason (which server, why). Stateless; thread-safe. */
@Readiness
@ApplicationScoped
public class SchemaReadiness implements HealthCheck {
    private final SchemaApplier schema;

    SchemaReadiness(SchemaApplier schema) {
        this.schema = schema;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("queen-schema").status(schema.ready());
        if (!schema.ready()) {
            b.withData("waiting", schema.waitingFor());
        }
        return b.build();
    }
}
