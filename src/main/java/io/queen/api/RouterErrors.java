package io.queen.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The request body limit ({@code QUEEN_MAX_BODY_BYTES}) answered in the API's JSON error shape. A request that
 * declares a larger Content-Length is refused here, before anything reads its body; a chunked body that grows
 * past the limit is still cut off by the HTTP server itself (413 without a body).
 */
@ApplicationScoped
public class RouterErrors {
    private final long limit;

    RouterErrors(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit) {
        this.limit = limit.asLongValue();
    }

    void init(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(rc -> {
            String len = rc.request().getHeader("Content-Length");
            if (len != null) {
                try {
                    if (Long.parseLong(len.strip()) > limit) {
                        rc.response().setStatusCode(413).putHeader("Content-Type", "application/json")
                                .putHeader("Connection", "close")
                                .end("{\"error\":\"Request body too large: " + len.strip() + " bytes, the limit is "
                                        + limit + " (QUEEN_MAX_BODY_BYTES)\"}");
                        return;
                    }
                } catch (NumberFormatException e) {
                    // let the HTTP server judge a malformed header
                }
            }
            rc.next();
        });
    }
}
