package io.queen.api;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.quarkus.vertx.http.runtime.security.HttpSecurityRecorder.DefaultAuthFailureHandler;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.function.BiConsumer;

/**
 * Gives every request the authentication-failure handler RESTEasy Reactive would give it (fail the request with the
 * root cause, so the exception mappers answer it), ahead of RESTEasy's own filter (priority 199). That filter, with
 * Micrometer present, also computes the request's URL template for HTTP metrics, and does so by building a new
 * request mapper over every resource class on each request: ~2.6% of the broker's samples under the soak load. The
 * broker has no HTTP server metrics ({@code quarkus.micrometer.binder.http-server.enabled=false}), so nothing reads
 * that template; with the handler already set, RESTEasy's filter only calls the next one. Stateless, thread-safe.
 */
@ApplicationScoped
public class AuthFailureRouting {
    /** The routing-context key Quarkus' HTTP security reads the failure handler from. */
    static final String KEY = "io.quarkus.vertx.http.auth-failure-handler";
    /** Above RESTEasy Reactive's default-handler filter (199), below CORS (300). */
    static final int PRIORITY = 250;

    /** What RESTEasy Reactive installs by default, unchanged: mark, then fail with the root cause. */
    private static final BiConsumer<RoutingContext, Throwable> FAIL = (rc, failure) -> {
        DefaultAuthFailureHandler.markIfOtherAuthenticationFailure(rc, failure);
        if (!rc.failed()) {
            rc.fail(DefaultAuthFailureHandler.extractRootCause(failure));
        }
    };

    void init(@Observes Filters filters) {
        filters.register(rc -> {
            if (rc.get(KEY) == null) {
                rc.put(KEY, FAIL);
            }
            rc.next();
        }, PRIORITY);
    }
}
