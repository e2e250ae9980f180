package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every JAX-RS route the broker serves (found by reflection over every compiled class under {@code io.queen})
 * declares its access level, and the level is the API spec's (section 2, column Access): a new route without
 * one, or with another level than this table, fails the build.
 */
class RouteAccessTest {
    /** API spec section 2; {@code /api/v1/fetch} is not in the index: a non-destructive read (RO). */
    static final Map<String, Access.Level> SPEC = new TreeMap<>(Map.ofEntries(
            Map.entry("POST /api/v1/configure", Access.Level.WRITE),
            Map.entry("DELETE /api/v1/resources/queues/:queue", Access.Level.ADMIN),
            // console additions, role-checked like their neighbours: purge as the queue delete, the live views as reads
            Map.entry("POST /api/v1/resources/queues/:queue/purge", Access.Level.ADMIN),
            Map.entry("GET /api/v1/live", Access.Level.READ),
            Map.entry("GET /api/v1/consumer-groups/:group/members", Access.Level.READ),
            Map.entry("POST /api/v1/push", Access.Level.PRODUCE),
            Map.entry("GET /api/v1/pop/queue/:queue", Access.Level.WRITE),
            Map.entry("GET /api/v1/pop/queue/:queue/partition/:partition", Access.Level.WRITE),
            Map.entry("GET /api/v1/pop", Access.Level.WRITE),
            Map.entry("POST /api/v1/ack", Access.Level.WRITE),
            Map.entry("POST /api/v1/ack/batch", Access.Level.WRITE),
            Map.entry("POST /api/v1/transaction", Access.Level.WRITE),
            Map.entry("POST /api/v1/lease/:leaseId/extend", Access.Level.WRITE),
            Map.entry("DELETE /api/v1/consumer-groups/:group", Access.Level.ADMIN),
            Map.entry("POST /api/v1/consumer-groups/:group/subscription", Access.Level.WRITE),
            Map.entry("GET /api/v1/dlq", Access.Level.READ),
            Map.entry("GET /health", Access.Level.PUBLIC),
            Map.entry("GET /api/v1/messages", Access.Level.READ),
            Map.entry("GET /api/v1/messages/:partitionId/:transactionId", Access.Level.READ),
            Map.entry("GET /api/v1/messages/:partitionId/:transactionId/groups", Access.Level.READ),
            Map.entry("DELETE /api/v1/messages/:partitionId/:transactionId", Access.Level.WRITE),
            Map.entry("POST /api/v1/messages/:partitionId/:transactionId/retry", Access.Level.WRITE),
            Map.entry("POST /api/v1/dlq/:id/replay", Access.Level.WRITE),
            // the filtered bulk routes: as the one-letter routes they repeat
            Map.entry("GET /api/v1/dlq/count", Access.Level.READ),
            Map.entry("POST /api/v1/dlq/replay", Access.Level.WRITE),
            Map.entry("POST /api/v1/dlq/delete", Access.Level.WRITE),
            Map.entry("GET /api/v1/analytics/retention", Access.Level.READ),
            Map.entry("GET /api/v1/status/analytics", Access.Level.READ),
            Map.entry("GET /api/v1/analytics/system-metrics", Access.Level.READ),
            Map.entry("GET /api/v1/analytics/worker-metrics", Access.Level.READ),
            Map.entry("GET /api/v1/analytics/queue-lag", Access.Level.READ),
            Map.entry("GET /api/v1/analytics/queue-ops", Access.Level.READ),
            Map.entry("GET /api/v1/analytics/queue-parked-replicas", Access.Level.READ),
            // other sessions' statements (literals removed): not for every reader (the spec's index says RO)
            Map.entry("GET /api/v1/analytics/postgres-stats", Access.Level.ADMIN),
            Map.entry("GET /metrics", Access.Level.PUBLIC),
            Map.entry("DELETE /api/v1/consumer-groups/:group/queues/:queue", Access.Level.ADMIN),
            Map.entry("POST /api/v1/consumer-groups/:group/queues/:queue/seek", Access.Level.WRITE),
            Map.entry("POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek",
                    Access.Level.WRITE),
            Map.entry("POST /api/v1/fetch", Access.Level.READ),
            Map.entry("GET /api/v1/resources/overview", Access.Level.READ),
            Map.entry("GET /api/v1/resources/queues", Access.Level.READ),
            Map.entry("GET /api/v1/resources/queues/:queue", Access.Level.READ),
            Map.entry("GET /api/v1/resources/namespaces", Access.Level.READ),
            Map.entry("GET /api/v1/resources/tasks", Access.Level.READ),
            Map.entry("POST /api/v1/traces", Access.Level.WRITE),
            Map.entry("GET /api/v1/traces/:partitionId/:transactionId", Access.Level.READ),
            Map.entry("GET /api/v1/traces/by-name/:traceName", Access.Level.READ),
            Map.entry("GET /api/v1/traces/names", Access.Level.READ),
            Map.entry("GET /api/v1/status", Access.Level.READ),
            Map.entry("GET /api/v1/status/queues", Access.Level.READ),
            Map.entry("GET /api/v1/status/queues/:queue", Access.Level.READ),
            Map.entry("GET /api/v1/status/queues/:queue/messages", Access.Level.READ),
            Map.entry("GET /api/v1/status/buffers", Access.Level.READ),
            Map.entry("GET /api/v1/consumer-groups", Access.Level.READ),
            Map.entry("GET /api/v1/consumer-groups/lagging", Access.Level.READ),
            Map.entry("GET /api/v1/consumer-groups/:group", Access.Level.READ),
            Map.entry("POST /api/v1/stats/refresh", Access.Level.ADMIN),
            Map.entry("GET /api/v1/system/maintenance", Access.Level.ADMIN),
            Map.entry("POST /api/v1/system/maintenance", Access.Level.ADMIN),
            Map.entry("GET /api/v1/system/maintenance/pop", Access.Level.ADMIN),
            Map.entry("POST /api/v1/system/maintenance/pop", Access.Level.ADMIN),
            Map.entry("POST /streams/v1/queries", Access.Level.WRITE),
            Map.entry("POST /streams/v1/cycle", Access.Level.WRITE),
            Map.entry("POST /streams/v1/state/get", Access.Level.READ)));

    record Route(String key, Access.Level level, String where) {
    }

    static List<Route> servedRoutes() throws IOException, ClassNotFoundException {
        java.nio.file.Path root = Paths.get("target", "classes");
        List<String> names;
        try (Stream<java.nio.file.Path> files = Files.walk(root.resolve("io/queen"))) {
            names = files.map(p -> root.relativize(p).toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - 6).replace('/', '.')).toList();
        }
        List<Route> out = new ArrayList<>();
        for (String name : names) {
            Class<?> c = Class.forName(name, false, RouteAccessTest.class.getClassLoader());
            Path base = c.getAnnotation(Path.class);
            for (Method m : c.getDeclaredMethods()) {
                String verb = httpMethod(m);
                if (verb == null) {
                    continue;
                }
                Path sub = m.getAnnotation(Path.class);
                String path = ("/" + (base == null ? "" : base.value()) + "/" + (sub == null ? "" : sub.value()))
                        .replaceAll("/+", "/").replaceAll("\\{([^}:]+)[^}]*}", ":$1");
                if (path.length() > 1 && path.endsWith("/")) {
                    path = path.substring(0, path.length() - 1);
                }
                Access a = m.getAnnotation(Access.class) != null ? m.getAnnotation(Access.class)
                        : c.getAnnotation(Access.class);
                out.add(new Route(verb + " " + path, a == null ? null : a.value(), c.getSimpleName() + "." + m.getName()));
            }
        }
        return out;
    }

    static String httpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            HttpMethod h = a.annotationType().getAnnotation(HttpMethod.class);
            if (h != null) {
                return h.value();
            }
        }
        return null;
    }

    @Test
    void everyServedRouteDeclaresTheSpecsAccessLevel() throws Exception {
        List<Route> routes = servedRoutes();
        assertTrue(routes.size() >= SPEC.size(), "found only " + routes.size() + " routes: " + routes);
        Map<String, Access.Level> served = new TreeMap<>();
        for (Route r : routes) {
            assertTrue(r.level() != null, r.where() + " (" + r.key() + ") has no @Access");
            assertTrue(SPEC.containsKey(r.key()), r.key() + " (" + r.where() + ") is not in the access table; add it"
                    + " with the level of the API spec's endpoint index");
            served.put(r.key(), r.level());
        }
        assertEquals(SPEC, served);
    }

    @Test
    void filterReadsMethodLevelsAndFailsClosed() throws Exception {
        class Undeclared {
            @jakarta.ws.rs.GET
            public void get() {
            }
        }
        Method m = Undeclared.class.getDeclaredMethod("get");
        assertEquals(Access.Level.ADMIN, AccessFilter.level(m, Undeclared.class));
        Method push = io.queen.push.PushResource.class.getDeclaredMethod("push", byte[].class, String.class);
        assertEquals(Access.Level.PRODUCE, AccessFilter.level(push, io.queen.push.PushResource.class));
    }
}
