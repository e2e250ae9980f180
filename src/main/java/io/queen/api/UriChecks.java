package io.queen.api;

import io.queen.http.FilterPriority;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Path and query parameters pass {@link Input}'s rules before any resource binds them to SQL: bytes that are not
 * well-formed UTF-8 (a lone surrogate's encoding {@code %ED%A0%80}, an overlong form, a stray {@code %FF}), a NUL
 * or a lone surrogate are a 400 naming the parameter. The lenient decoding of the HTTP layer would turn every
 * malformed sequence into U+FFFD, so {@code g%ED%A0%80} and {@code g%FF} would name one consumer group. Only a URI
 * whose raw form holds a NUL, {@code %00}, an escape of a byte >= 0x80 or a raw non-ASCII character is decoded and
 * inspected, so the common (ASCII) request costs one scan of the URI and no allocation. Lengths are the resources'
 * rules (a name in a path is checked where it is used). Stateless, thread-safe.
 */
public class UriChecks {
    static final String MALFORMED = " must be valid UTF-8 (a percent-escape or byte is not well-formed UTF-8)";

    @ServerRequestFilter(priority = FilterPriority.URI_CHECKS)
    public Response check(HttpServerRequest request, UriInfo uri) {
        String raw = request.uri();
        if (!suspicious(raw)) {
            return null;
        }
        String bad = malformed(raw, uri);
        if (bad == null) {
            bad = firstBad(uri.getPathParameters(true));
        }
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

    /**
     * True when the raw URI holds a NUL, {@code %00}, an escape of a byte >= 0x80 ({@code %8x}..{@code %Fx}, which
     * starts every multi-byte UTF-8 sequence) or a raw character above ASCII.
     */
    static boolean suspicious(String raw) {
        int n = raw.length();
        for (int i = 0; i < n; i++) {
            char c = raw.charAt(i);
            if (c == 0 || c > 0x7F) {
                return true;
            }
            if (c == '%' && i + 2 < n) {
                char a = raw.charAt(i + 1);
                if (a == '0' && raw.charAt(i + 2) == '0' || a >= '8' && a <= '9' || a >= 'a' && a <= 'f'
                        || a >= 'A' && a <= 'F') {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The 400 message for the first path segment or query parameter of {@code raw} whose bytes are not well-formed
     * UTF-8, or null. A path segment is named by the path parameter it was bound to (else "path").
     */
    static String malformed(String raw, UriInfo uri) {
        int q = raw.indexOf('?');
        String path = q < 0 ? raw : raw.substring(0, q);
        for (String segment : path.split("/", -1)) {
            if (utf8(segment) == null) {
                return pathParameter(segment, uri) + MALFORMED;
            }
        }
        if (q < 0) {
            return null;
        }
        for (String pair : raw.substring(q + 1).split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = utf8(eq < 0 ? pair : pair.substring(0, eq));
            if (name == null) {
                return "a parameter name" + MALFORMED;
            }
            if (eq >= 0 && utf8(pair.substring(eq + 1)) == null) {
                return name + MALFORMED;
            }
        }
        return null;
    }

    /** The name of the path parameter bound to this raw segment (decoded leniently, as the HTTP layer did). */
    private static String pathParameter(String segment, UriInfo uri) {
        String lenient = new String(bytes(segment), StandardCharsets.UTF_8);
        if (uri != null) {
            for (Map.Entry<String, List<String>> e : uri.getPathParameters(true).entrySet()) {
                for (String v : e.getValue()) {
                    if (v.equals(lenient) || v.contains(lenient)) {
                        return e.getKey();
                    }
                }
            }
        }
        return "path";
    }

    /** The strictly decoded text of a raw URI component ({@code +} stays {@code +}), or null when malformed. */
    static String utf8(String component) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes(component))).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** The bytes of a raw URI component: escapes decoded, other characters as the bytes the codec read. */
    private static byte[] bytes(String component) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(component.length());
        int n = component.length();
        for (int i = 0; i < n; i++) {
            char c = component.charAt(i);
            if (c == '%' && i + 2 < n && hex(component.charAt(i + 1)) >= 0 && hex(component.charAt(i + 2)) >= 0) {
                out.write(hex(component.charAt(i + 1)) << 4 | hex(component.charAt(i + 2)));
                i += 2;
            } else {
                // the HTTP codec reads the request line byte by byte into chars 0..255
                out.write(c);
            }
        }
        return out.toByteArray();
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }
}
