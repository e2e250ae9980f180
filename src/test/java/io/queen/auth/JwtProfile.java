package io.queen.auth;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Authentication on with an HMAC secret; tenants from the {@code tenant} claim; the tenant header untrusted. */
public class JwtProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("queen.auth.enabled", "true", "queen.auth.secret", Tokens.SECRET);
    }
}
