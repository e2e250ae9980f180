package io.queen.http;

import jakarta.ws.rs.Priorities;

/**
 * Priorities of the broker's JAX-RS request filters, which run after the router's {@link PipelineStage stages},
 * once a resource matched (an unknown route is a 404 before any of them); lower runs first.
 */
public final class FilterPriority {
    /**
     * {@link io.queen.api.UriChecks}: a path or query parameter that is not well-formed UTF-8, or holds a NUL, is a
     * 400. Ahead of authentication: such a request reaches no resource whoever sends it, and it costs no token
     * verification.
     */
    public static final int URI_CHECKS = Priorities.AUTHENTICATION - 100;
    /**
     * {@link io.queen.auth.AccessFilter}: the caller's token against the route's access level (401, 403), then,
     * with authentication on, the body's type (415, so an anonymous request learns 401 and not which bodies a route
     * takes), and the caller's tenant.
     */
    public static final int ACCESS = Priorities.AUTHENTICATION;

    private FilterPriority() {
    }
}
