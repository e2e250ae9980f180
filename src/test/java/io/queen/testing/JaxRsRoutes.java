package io.queen.testing;

import io.queen.QueenMain;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Every JAX-RS route the broker serves, found by reflection over its compiled classes (every class annotated
 * {@code @Path}, every method with an HTTP method annotation), for the tests that check a description of the API
 * against the code. Stateless.
 */
public final class JaxRsRoutes {
    private JaxRsRoutes() {
    }

    /** {@code method} in lower case; {@code path} with its parameters as {@code {name}}. */
    public record Route(String method, String path) {
    }

    public static List<Route> all() throws Exception {
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
}
