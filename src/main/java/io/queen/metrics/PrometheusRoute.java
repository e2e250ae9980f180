package io.queen.metrics;

import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code GET /metrics/prometheus} (API spec 1.3, 4.14): the Prometheus text format 0.0.4
 * ({@code text/plain; version=0.0.4; charset=utf-8}), or OpenMetrics 1.0.0 when the request's {@code Accept}
 * prefers it (a Prometheus server's scrape asks for it first). Any other {@code Accept} (none, {@code *}{@code /*},
 * the Go client's {@code application/json}, garbage) gets the text format, never a 406.
 *
 * <p>Takes the path ahead of Quarkus' own handler (same registry), which answered OpenMetrics by default and 406
 * to any {@code Accept} that was not exactly one of its two types. Stateless; thread-safe.
 */
@ApplicationScoped
public class PrometheusRoute {
    private static final String OPENMETRICS = "application/openmetrics-text";

    private final PrometheusMeterRegistry registry;
    private final String path;

    PrometheusRoute(PrometheusMeterRegistry registry,
            @ConfigProperty(name = "quarkus.micrometer.export.prometheus.path") String path) {
        this.registry = registry;
        this.path = path;
    }

    void init(@Observes Router router) {
        // Quarkus' routes for the path have order 1; the scrape formats every meter, so off the event loop
        router.get(path).order(0).blockingHandler(rc -> {
            String type = contentType(rc.request().getHeader(HttpHeaders.ACCEPT));
            String body = registry.scrape(type);
            rc.response().putHeader(HttpHeaders.CONTENT_TYPE, type).end(body);
        }, false);
    }

    /**
     * The exposition format for an {@code Accept} header: OpenMetrics when a range naming it (without a version
     * or with a 1.x one) has a higher quality than every range that admits text ({@code text/plain},
     * {@code text/*}, {@code *}{@code /*}); the text format otherwise, including on a tie and for a header that
     * names neither.
     */
    public static String contentType(String accept) {
        if (accept == null || accept.isBlank()) {
            return TextFormat.CONTENT_TYPE_004;
        }
        double openMetrics = 0;
        double text = 0;
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String type = parts[0].strip().toLowerCase(Locale.ROOT);
            double q = 1;
            String version = null;
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].strip().toLowerCase(Locale.ROOT);
                if (p.startsWith("q=")) {
                    q = quality(p.substring(2));
                } else if (p.startsWith("version=")) {
                    version = p.substring(8).strip();
                }
            }
            if (type.equals(OPENMETRICS) && (version == null || version.startsWith("1."))) {
                openMetrics = Math.max(openMetrics, q);
            } else if (type.equals("text/plain") || type.equals("text/*") || type.equals("*/*")) {
                text = Math.max(text, q);
            }
        }
        return openMetrics > text ? TextFormat.CONTENT_TYPE_OPENMETRICS_100 : TextFormat.CONTENT_TYPE_004;
    }

    /** An RFC 9110 weight; a malformed one counts as 0 (the range is ignored). */
    private static double quality(String q) {
        try {
            double v = Double.parseDouble(q.strip());
            return v >= 0 && v <= 1 ? v : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
