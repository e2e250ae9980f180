package io.queen.api;

import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Path and query parameters pass {@link Input}'s rules before any resource binds them to SQL: a NUL or a lone
 * surrogate is a 400 naming the parameter. Only a URI whose raw form can decode to such a character ({@code %00},
 * or {@code %ED} followed by A-F, the UTF-8 form of a surrogate) is decoded and inspected, so the common request
 * costs one scan of the URI and no allocation. Lengths are the resources' rules (a name in a path is checked
 * where it is used). Stateless, thread-safe.
 */
public class UriChecks {

    @ServerRequestFilter
    public Response check(HttpServerRequest request, UriInfo uri) {
        if (!suspicious(request.uri())) {
            return null;
        }
        String bad = firstBad(uri.getPathParameters(true));
        if (bad == null) {
            bad = firstBad(uri.getQueryParameters(true));
        }
        if (bad == null && !Input.isValid(uri.getPath(true), Integer.MAX_VALUE)) {
            bad = "path" + Input.problem(uri.getPath(true), Integer.MAX_VALUE);
        }
        return bad == null ? null : ErrorMappers.error(400, bad);
    }

    private static String firstBad(MultivaluedMap<String, String> params) {
        for (Map.Entry<String, List<String>> e : params.entrySet()) {
            String p = Input.problem(e.getKey(), Integer.MAX_VALUE);
            if (p != null) {
                return "a parameter name" + p;
            }
            for (String v : e.getValue()) {
                p = Input.problem(v, Integer.MAX_VALUE);
                if (p != null) {
                    return e.getKey() + p;
                }
            }
        }
        return null;
    }

    /** True when the raw URI holds a NUL, {@code %00} or {@code %ED%[A-Fa-f]} (case-insensitive). */
    static boolean suspicious(String raw) {
        int n = raw.length();
        for (int i = 0; i < n; i++) {
            char c = raw.charAt(i);
            if (c == 0) {
                return true;
            }
            if (c == '%' && i + 2 < n) {
                char a = raw.charAt(i + 1);
                char b = raw.charAt(i + 2);
                if (a == '0' && b == '0') {
                    return true;
                }
                if ((a == 'e' || a == 'E') && (b == 'd' || b == 'D') && i + 5 < n && raw.charAt(i + 3) == '%') {
                    char h = raw.charAt(i + 4);
                    if (h == 'a' || h == 'A' || h == 'b' || h == 'B') {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
