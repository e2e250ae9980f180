package io.queen.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.JaxRsRoutes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/http-api.md is the repository's API reference: its route index names every JAX-RS route the broker serves
 * (as {@code `METHOD /path/:param`}), and names no route the broker does not serve.
 */
class HttpApiDocTest {
    static final Path DOC = Path.of("docs/http-api.md");
    private static final Pattern ROUTE = Pattern.compile("`(GET|POST|PUT|DELETE) (/[^`\\s?]*)`");

    /** A route with its parameters blanked, so that {@code {queue}} and {@code :queue} compare equal. */
    static String shape(String method, String path) {
        return method.toUpperCase(Locale.ROOT) + " " + path.replaceAll("\\{\\w+}|:\\w+", "*");
    }

    @Test
    void theRouteIndexNamesEveryRouteAndNoOther() throws Exception {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        int start = doc.indexOf("\n## Route index\n");
        assertTrue(start >= 0, "http-api.md has a route index");
        String index = doc.substring(start, doc.indexOf("\n## ", start + 1));
        Set<String> documented = new TreeSet<>();
        Matcher m = ROUTE.matcher(index);
        while (m.find()) {
            documented.add(shape(m.group(1), m.group(2)));
        }
        Set<String> served = new TreeSet<>();
        for (JaxRsRoutes.Route r : JaxRsRoutes.all()) {
            served.add(shape(r.method(), r.path()));
        }
        assertTrue(served.size() >= 35, "routes found by reflection: " + served);
        Set<String> missing = new TreeSet<>(served);
        missing.removeAll(documented);
        assertEquals(Set.of(), missing, "routes http-api.md does not list");
        Set<String> extra = new TreeSet<>(documented);
        extra.removeAll(served);
        assertEquals(Set.of(), extra, "routes http-api.md lists that the broker does not serve");
    }

    @Test
    void itNeverPointsAtAnOutsideSpecification() throws Exception {
        for (Path doc : DocLinksTest.docs()) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            for (String s : List.of("shared/spec", "API spec")) {
                assertTrue(!text.contains(s), doc + " mentions " + s);
            }
        }
    }
}
