package io.queen.auth;

import io.queen.testing.Http;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;

/**
 * HS256 tokens shaped like the official clients' tests sign them ({@code sub}, {@code role}, {@code iat},
 * {@code exp}, optionally {@code tenant}), and requests that carry one. Stateless.
 */
public final class Tokens {
    public static final String SECRET = "queen-test-secret-0123456789abcdef-0123456789abcdef";

    private Tokens() {
    }

    public static String token(String sub, String role, String tenant) {
        JwtClaimsBuilder b = Jwt.claims().issuedAt(Instant.now()).expiresAt(Instant.now().plusSeconds(3600));
        if (sub != null) {
            b.subject(sub);
        }
        if (role != null) {
            b.claim("role", role);
        }
        if (tenant != null) {
            b.claim("tenant", tenant);
        }
        return b.signWithSecret(SECRET);
    }

    public static Http.Reply get(String token, String path) {
        return Http.send(request(token, path).GET().build());
    }

    public static Http.Reply delete(String token, String path) {
        return Http.send(request(token, path).DELETE().build());
    }

    public static Http.Reply post(String token, String path, String json) {
        return Http.send(request(token, path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** {@code Authorization: Bearer <token>}; a token starting with "raw:" is sent without the scheme. */
    public static HttpRequest.Builder request(String token, String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(Http.base() + path)).timeout(Duration.ofSeconds(60));
        if (token != null) {
            b.header("Authorization", token.startsWith("raw:") ? token.substring(4) : "Bearer " + token);
        }
        return b;
    }
}
