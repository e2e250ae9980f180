package io.queen.console;

import io.queen.http.PipelineStage;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Security headers on the console's static files ({@code /}, {@code /index.html}, {@code /console/*}): a
 * Content-Security-Policy that lets the page load only its own scripts, styles and API ({@code 'self'}; no inline
 * script, no eval, no framing, no plugins), {@code X-Frame-Options: DENY} for browsers without
 * {@code frame-ancestors}, and {@code X-Content-Type-Options: nosniff}. Only those paths are routed here: API
 * requests do not pass through it. Stateless.
 */
@ApplicationScoped
public class ConsoleHeaders {
    /** The console's policy; {@code data:} images only for its empty favicon. */
    public static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self';"
            + " frame-ancestors 'none'; object-src 'none'";

    void init(@Observes Router router) {
        PipelineStage.CONSOLE_HEADERS.on(router.get("/")).handler(ConsoleHeaders::add);
        PipelineStage.CONSOLE_HEADERS.on(router.get("/index.html")).handler(ConsoleHeaders::add);
        PipelineStage.CONSOLE_HEADERS.on(router.get("/console/*")).handler(ConsoleHeaders::add);
    }

    static void add(RoutingContext rc) {
        rc.response().putHeader("Content-Security-Policy", POLICY).putHeader("X-Frame-Options", "DENY")
                .putHeader("X-Content-Type-Options", "nosniff");
        rc.next();
    }
}
