package io.queen.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Checks made before anything reads a body, answered in the API's JSON error shape. The request body limit
 * ({@code QUEEN_MAX_BODY_BYTES}): a request that declares a larger Content-Length is a 413 (a chunked body that
 * grows past the limit is still cut off by the HTTP server itself, 413 without a body). A body with an explicitly
 * non-JSON Content-Type is a 415 (API spec 1.1: bodies are JSON); a missing one is accepted. A request's
 * {@code Accept} is ignored on the broker's own routes (API spec 1.2), which each answer one type whatever it
 * says. Stateless.
 */
@ApplicationScoped
public class RouterErrors {
    private static final Logger LOG = Logger.getLogger(RouterErrors.class);
    private final long limit;

    RouterErrors(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit) {
        this.limit = limit.asLongValue();
    }

    void init(@Observes Router router) {
        // Failures raised outside the resources (a body handler's limit, an unexpected exception in a route
        // handler) reach the router's failure handlers, whose default answers carry no body or, for a 500,
        // details: give them the API's error shape instead. (A request line the HTTP codec itself refuses, such
        // as a '%' not followed by two hex digits or an over-long URI, is answered by Vert.x before any handler:
        // 400/414/431 with no body.)
        router.route().order(Integer.MIN_VALUE).failureHandler(rc -> {
            if (rc.response().ended() || rc.response().headWritten()) {
                rc.next();
                return;
            }
            int status = rc.statusCode();
            if (status >= 400 && status < 500) {
                rc.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                        .end(switch (status) {
                            case 404 -> "{\"error\":\"Not found\"}";
                            case 405 -> "{\"error\":\"Method not allowed\"}";
                            case 413 -> "{\"error\":\"Request body too large\"}";
                            default -> "{\"error\":\"Bad request\"}";
                        });
                return;
            }
            String id = Failures.newRequestId();
            LOG.errorf(rc.failure(), "request failed, requestId %s", id);
            rc.response().setStatusCode(500).putHeader("Content-Type", "application/json")
                    .end("{\"error\":\"Internal error\",\"requestId\":\"" + id + "\"}");
        });
        router.route().order(Integer.MIN_VALUE).handler(rc -> {
            if (answersOneType(rc.normalizedPath())) {
                // RESTEasy would answer 406 to an Accept that does not admit the route's @Produces (the Go
                // client's Accept: application/json on a text route, a browser's text/html on a JSON one)
                rc.request().headers().remove(HttpHeaders.ACCEPT);
            }
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
            if (hasBody(rc.request()) && !isJson(rc.request().getHeader("Content-Type"))) {
                rc.response().setStatusCode(415).putHeader("Content-Type", "application/json")
                        .putHeader("Connection", "close")
                        .end("{\"error\":\"Unsupported Media Type: a request body must be JSON (Content-Type:"
                                + " application/json, or none)\"}");
                return;
            }
            rc.next();
        });
    }

    /**
     * The broker's own routes, each of which answers one media type: {@code /api/}, {@code /streams/},
     * {@code /health}, {@code /metrics}. Quarkus' endpoints ({@code /q/openapi} picks YAML or JSON by Accept) and
     * {@code /metrics/prometheus} (text or OpenMetrics) negotiate and keep the header.
     */
    static boolean answersOneType(String path) {
        return path.startsWith("/api/") || path.startsWith("/streams/") || path.equals("/health")
                || path.equals("/metrics");
    }

    /** A request that declares body bytes: a non-zero Content-Length or a chunked transfer. */
    static boolean hasBody(HttpServerRequest r) {
        String len = r.getHeader("Content-Length");
        if (len != null) {
            return !len.strip().equals("0");
        }
        return r.getHeader("Transfer-Encoding") != null;
    }

    /**
     * A body's Content-Type the JSON parser may read: none (clients send none on bodies they consider empty, and
     * older tools none at all), {@code application/json}, {@code text/json} or any {@code +json} type, with or
     * without parameters such as {@code charset=utf-8}. Anything else (text/xml, form data, ...) is a 415.
     */
    static boolean isJson(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return true;
        }
        int semi = contentType.indexOf(';');
        String type = (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || type.equals("text/json") || type.endsWith("+json")
                || type.equals("*/*");
    }
}
