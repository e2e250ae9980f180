package io.queen.auth;

import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who a bearer token stands for, outside HTTP (the Kafka listener's SASL): the token is verified as
 * {@link AccessFilter} verifies it and gives the same tenant, subject and role. Thread-safe (a cache of verified
 * tokens until their {@code exp}).
 */
@ApplicationScoped
public class TokenCallers {
    private final TokenVerifier verifier;
    private final AuthConfig config;
    private final UUID defaultTenant;
    private final VerifiedTokens verified = new VerifiedTokens(10_000);

    TokenCallers(TokenVerifier verifier, AuthConfig config, Callers callers) {
        this.verifier = verifier;
        this.config = config;
        this.defaultTenant = callers.anonymous().tenant();
    }

    /** Whether callers must authenticate (JWT_ENABLED). */
    public boolean required() {
        return config.enabled();
    }

    /** The caller of a valid token; throws for an invalid or expired one. */
    public Caller of(String token) throws ParseException {
        long now = System.currentTimeMillis() / 1000;
        Caller known = verified.get(token, now);
        if (known != null) {
            return known;
        }
        JsonWebToken jwt = verifier.verify(token);
        Caller caller = AccessFilter.caller(jwt, config, defaultTenant);
        verified.put(token, caller, jwt.getExpirationTime(), now);
        return caller;
    }
}
