package io.queen.shutdown;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness is DOWN from SIGTERM on, so a load balancer or a Kubernetes Service stops sending new requests to a
 * stopping broker while it finishes the ones it has. Stateless; thread-safe.
 */
@Readiness
@ApplicationScoped
public class StoppingReadiness implements HealthCheck {
    private final DrainState state;

    StoppingReadiness(DrainState state) {
        this.state = state;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("queen-serving").status(!state.stopping())
                .withData("phase", state.phase().name().toLowerCase()).build();
    }
}
