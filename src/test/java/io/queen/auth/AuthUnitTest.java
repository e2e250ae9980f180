package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Roles, token extraction, tenant ids and the start-up check, without a broker. */
class AuthUnitTest {

    record Cfg(boolean enabled, Optional<String> secret, Optional<String> publicKey, Optional<String> jwksUrl,
            Optional<String> issuer, Optional<String> audience, String tenantClaim, boolean tenantHeaderTrusted)
            implements AuthConfig {
    }

    static Cfg keys(Optional<String> secret, Optional<String> pem, Optional<String> jwks) {
        return new Cfg(true, secret, pem, jwks, Optional.empty(), Optional.empty(), "tenant", false);
    }

    @Test
    void enabledWithoutExactlyOneKeyRefusesToStart() {
        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> TokenVerifier.context(keys(Optional.empty(), Optional.empty(), Optional.empty())));
        assertTrue(none.getMessage().contains("JWT_SECRET"), none.getMessage());
        assertThrows(IllegalStateException.class,
                () -> TokenVerifier.context(keys(Optional.of("s"), Optional.empty(), Optional.of("http://x/jwks"))));
        assertEquals(3, TokenVerifier.context(keys(Optional.of("0123456789abcdef0123456789abcdef"),
                Optional.empty(), Optional.empty())).getSignatureAlgorithm().size());
    }

    @Test
    void roleHierarchy() {
        for (Access.Level l : Access.Level.values()) {
            assertTrue(Role.ADMIN.allows(l));
        }
        assertTrue(Role.READ_WRITE.allows(Access.Level.WRITE));
        assertTrue(Role.READ_WRITE.allows(Access.Level.PRODUCE));
        assertFalse(Role.READ_WRITE.allows(Access.Level.ADMIN));
        assertTrue(Role.READ_ONLY.allows(Access.Level.READ));
        assertFalse(Role.READ_ONLY.allows(Access.Level.PRODUCE));
        assertFalse(Role.READ_ONLY.allows(Access.Level.WRITE));
        assertTrue(Role.WRITE_ONLY.allows(Access.Level.PRODUCE));
        assertFalse(Role.WRITE_ONLY.allows(Access.Level.READ));
        assertFalse(Role.WRITE_ONLY.allows(Access.Level.WRITE));
        assertEquals(Role.READ_WRITE, Role.strongest(List.of("write-only", "read-only")));
        assertEquals(Role.ADMIN, Role.strongest(List.of("read-only", "admin")));
        assertNull(Role.strongest(List.of("root")));
        assertNull(Role.of(null));
    }

    @Test
    void bearerOrRawToken() {
        assertEquals("abc", AccessFilter.token("Bearer abc"));
        assertEquals("abc", AccessFilter.token("bearer  abc "));
        assertEquals("abc.def.ghi", AccessFilter.token("abc.def.ghi"));
        assertNull(AccessFilter.token(null));
        assertNull(AccessFilter.token("Bearer "));
        assertNull(AccessFilter.token("  "));
    }

    @Test
    void tenantIdsAreStableNameBasedUuids() {
        // RFC 9562 appendix A.4: UUID v5 of "www.example.com" in the DNS namespace
        assertEquals(UUID.fromString("2ed6657d-e927-568b-95e1-2665a8aea6a2"),
                Tenants.v5(UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), "www.example.com"));
        UUID acme = Tenants.of("acme");
        assertEquals(5, acme.version());
        assertEquals(acme, Tenants.of("acme"));
        assertFalse(acme.equals(Tenants.of("Acme")));
        UUID given = UUID.randomUUID();
        assertEquals(given, Tenants.of(given.toString()));
    }

    @Test
    void verifiedTokensAreRememberedOnlyUntilTheirExpiry() {
        VerifiedTokens cache = new VerifiedTokens(2);
        Caller c = new Caller(UUID.randomUUID(), "s", Role.ADMIN);
        cache.put("t1", c, 110, 100);
        assertEquals(c, cache.get("t1", 100));
        assertEquals(c, cache.get("t1", 109));
        assertNull(cache.get("t1", 110));
        assertEquals(0, cache.size());
        cache.put("t2", c, 100, 100);  // already expired: not kept
        assertNull(cache.get("t2", 99));
        assertNull(cache.get("t1-but-other-bytes", 100));
        cache.put("a", c, 200, 100);
        cache.put("b", c, 200, 100);
        cache.put("c", c, 200, 100);  // full: starts over
        assertEquals(1, cache.size());
        assertEquals(c, cache.get("c", 100));
    }
}
