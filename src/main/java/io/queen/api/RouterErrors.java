package io.queen.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.queen.http.PipelineStage;
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
 * ({@code QUEEN_MAX_BODY_BYTES}): a request that declares a larger Content-Length is a 413 before any body byte is
 * read; a chunked body is refused as soon as it grows past the limit. Both 413s end with a lingering close
 * ({@link LingeringClose}): at most another limit's worth of the rest is read and dropped. On routes whose body the
 * resource streams, the HTTP server's own 413 comes without a body. A body with an explicitly non-JSON
 * Content-Type is a 415 (bodies are JSON); a missing one is accepted. With authentication on, the 415 is left to the access filter, which answers it only after the caller is authenticated (an anonymous
 * request learns 401, not which bodies a route takes). A request's {@code Accept} is ignored on the broker's own
 * routes, which each answer one type whatever it says. Stateless.
 */
@ApplicationScoped
public class RouterErrors {
    private static final Logger LOG = Logger.getLogger(RouterErrors.class);
    /** The answer to a body that is not JSON. */
    public static final String UNSUPPORTED_MEDIA_TYPE = "{\"error\":\"Unsupported Media Type: a request body must be"
            + " JSON (Content-Type: application/json, or none)\"}";

    private final long limit;
    private final boolean mediaTypeHere;

    RouterErrors(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit,
            @ConfigProperty(name = "queen.auth.enabled") boolean authEnabled) {
        this.limit = limit.asLongValue();
        this.mediaTypeHere = !authEnabled;
    }

    void init(@Observes Router router) {
        // Failures raised outside the resources (a body handler's limit, an unexpected exception in a route
        // handler) reach the router's failure handlers, whose default answers carry no body or, for a 500,
        // details: give them the API's error shape instead. (A request line the HTTP codec itself refuses, such
        // as a '%' not followed by two hex digits or an over-long URI, is answered by Vert.x before any handler:
        // 400/414/431 with no body.)
        PipelineStage.FAILURE_ANSWERS.on(router.route()).failureHandler(rc -> {
            if (rc.response().ended() || rc.response().headWritten()) {
                if (Failures.clientGone(rc.failure())) {
                    return;  // answered already, then the connection closed (a refused body): nothing failed
                }
                rc.next();
                return;
            }
            int status = rc.statusCode();
            if (status == 413) {
                // a body that grew past the limit (chunked, or longer than declared): refused now, and the
                // connection closed, so the rest of the body is never read
                rc.response().setStatusCode(413).putHeader("Content-Type", "application/json")
                        .putHeader("Connection", "close").end("{\"error\":\"Request body too large: the limit is "
                                + limit + " bytes (QUEEN_MAX_BODY_BYTES)\"}")
                        .onComplete(done -> LingeringClose.after(rc.request(), limit));
                return;
            }
            if (status >= 400 && status < 500) {
                rc.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                        .end(switch (status) {
                            case 404 -> "{\"error\":\"Not found\"}";
                            case 405 -> "{\"error\":\"Method not allowed\"}";
                            default -> "{\"error\":\"Bad request\"}";
                        });
                return;
            }
            if (Failures.clientGone(rc.failure())) {
                // the client closed the connection mid-body: no one to answer, nothing failed here
                LOG.debugf("request not completed, the client went away: %s", rc.failure().toString());
                return;
            }
            String id = Failures.newRequestId();
            LOG.errorf(rc.failure(), "request failed, requestId %s", id);
            rc.response().setStatusCode(500).putHeader("Content-Type", "application/json")
                    .end("{\"error\":\"Internal error\",\"requestId\":\"" + id + "\"}");
        });
        PipelineStage.REQUEST_CHECKS.on(router.route()).handler(rc -> {
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
                                        + limit + " (QUEEN_MAX_BODY_BYTES)\"}")
                                .onComplete(done -> LingeringClose.after(rc.request(), limit));
                        return;
                    }
                } catch (NumberFormatException e) {
                    // let the HTTP server judge a malformed header
                }
            }
            HttpServerRequest r = rc.request();
            if (mediaTypeHere && unsupportedBody(r.getHeader("Content-Length"), r.getHeader("Transfer-Encoding"),
                    r.getHeader("Content-Type"))) {
                rc.response().setStatusCode(415).putHeader("Content-Type", "application/json")
                        .putHeader("Connection", "close").end(UNSUPPORTED_MEDIA_TYPE);
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

    /** Whether a request with these headers declares a body (see {@link #hasBody}) that is not JSON. */
    public static boolean unsupportedBody(String contentLength, String transferEncoding, String contentType) {
        return hasBody(contentLength, transferEncoding) && !isJson(contentType);
    }

    /** A request that declares body bytes: a non-zero Content-Length or a chunked transfer. */
    static boolean hasBody(String contentLength, String transferEncoding) {
        if (contentLength != null) {
            return !contentLength.strip().equals("0");
        }
        return transferEncoding != null;
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
