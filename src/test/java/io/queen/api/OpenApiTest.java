package io.queen.api;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.QueenMain;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document describes every route the broker serves: the JAX-RS routes are found by reflection over
 * the broker's compiled classes (every class annotated {@code @Path}, every method with an HTTP method
 * annotation), and each must appear in {@code /q/openapi} with its method, a summary and at least one documented
 * answer. Swagger UI is served.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class OpenApiTest {

    record Route(String method, String path) {
    }

    static List<Route> jaxRsRoutes() throws Exception {
        java.nio.file.Path root = java.nio.file.Path.of(QueenMain.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        List<Route> out = new ArrayList<>();
        List<String> classes;
        try (Stream<java.nio.file.Path> files = Files.walk(root)) {
            classes = files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().contains("$"))
                    .map(f -> root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", ""))
                    .toList();
        }
        for (String name : classes) {
            Class<?> c = Class.forName(name, false, QueenMain.class.getClassLoader());
            Path base = c.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method m : c.getDeclaredMethods()) {
                for (Annotation a : m.getAnnotations()) {
                    HttpMethod hm = a.annotationType().getAnnotation(HttpMethod.class);
                    if (hm != null) {
                        Path sub = m.getAnnotation(Path.class);
                        out.add(new Route(hm.value().toLowerCase(Locale.ROOT),
                                join(base.value(), sub == null ? "" : sub.value())));
                    }
                }
            }
        }
        return out;
    }

    static String join(String a, String b) {
        String p = ("/" + a + "/" + b).replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    @Test
    void everyRouteIsDescribed() throws Exception {
        List<Route> routes = jaxRsRoutes();
        // a floor, so that a broken scan cannot pass by finding nothing
        assertTrue(routes.size() >= 35, "routes found by reflection: " + routes);
        Http.Reply r = Http.get("/q/openapi?format=json");
        assertEquals(200, r.status(), r.body());
        JsonNode paths = json(r.body()).get("paths");
        TreeSet<String> missing = new TreeSet<>();
        for (Route route : routes) {
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
