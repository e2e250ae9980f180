package io.queen.health;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness: the process serves requests. Deliberately independent of PostgreSQL, so an orchestrator does not
 * restart every broker while the database is briefly away; readiness carries the database check (Agroal's
 * datasource check, {@code /q/health/ready}).
 */
@Liveness
@ApplicationScoped
public class BrokerLiveness implements HealthCheck {
    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.up("queen-broker");
    }
}
