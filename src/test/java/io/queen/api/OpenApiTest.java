package io.queen.api;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.JaxRsRoutes;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document describes every route the broker serves: every JAX-RS route ({@link JaxRsRoutes}) must
 * appear in {@code /q/openapi} with its method, a summary and at least one documented answer. The document is the
 * static file {@code src/main/resources/META-INF/openapi.yaml} (annotation scanning is off), so a new route is
 * added there; this test is what keeps that file complete. Swagger UI is served.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class OpenApiTest {

    @Test
    void everyRouteIsDescribed() throws Exception {
        List<JaxRsRoutes.Route> routes = JaxRsRoutes.all();
        // a floor, so that a broken scan cannot pass by finding nothing
        assertTrue(routes.size() >= 35, "routes found by reflection: " + routes);
        Http.Reply r = Http.get("/q/openapi?format=json");
        assertEquals(200, r.status(), r.body());
        JsonNode paths = json(r.body()).get("paths");
        TreeSet<String> missing = new TreeSet<>();
        for (JaxRsRoutes.Route route : routes) {
            JsonNode op = paths.path(route.path()).path(route.method());
            if (op.isMissingNode()) {
                missing.add(route.method().toUpperCase(Locale.ROOT) + " " + route.path() + " (absent)");
            } else if (!op.hasNonNull("summary") || op.path("responses").isEmpty()) {
                missing.add(route.method().toUpperCase(Locale.ROOT) + " " + route.path() + " (no summary/answers)");
            }
        }
        assertEquals(new TreeSet<>(), missing, "routes the OpenAPI document does not describe");
        for (String p : List.of("/api/v1/resources/overview", "/api/v1/status", "/api/v1/consumer-groups/lagging",
                "/api/v1/push", "/api/v1/pop/queue/{queue}")) {
            assertTrue(paths.has(p), p);
        }
    }

    @Test
    void swaggerUiIsServed() {
        Http.Reply r = Http.get("/q/swagger-ui/index.html");
        assertEquals(200, r.status());
        assertTrue(r.body().toLowerCase(Locale.ROOT).contains("swagger"), r.body());
    }
}
