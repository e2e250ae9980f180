package io.queen.auth;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

/**
 * Access-control configuration ({@code queen.auth.*}); defaults in {@code application.properties}, each key bound
 * to the reference broker's environment variable ({@code JWT_ENABLED}, {@code JWT_SECRET}, ...).
 */
@ConfigMapping(prefix = "queen.auth")
public interface AuthConfig {

    /** Require a JWT on every non-public route ({@code JWT_ENABLED}). Off: every route is open. */
    boolean enabled();

    /** HMAC secret for HS256/384/512 tokens, as raw text ({@code JWT_SECRET}). */
    Optional<String> secret();

    /** PEM public key for RS/PS/ES/EdDSA tokens ({@code JWT_PUBLIC_KEY}). */
    Optional<String> publicKey();

    /** JWKS URL for RS/PS/ES/EdDSA tokens ({@code JWT_JWKS_URL}). */
    Optional<String> jwksUrl();

    /** Required {@code iss}, when set ({@code JWT_ISSUER}). */
    Optional<String> issuer();

    /** Required {@code aud}, when set ({@code JWT_AUDIENCE}). */
    Optional<String> audience();

    /** Token claim naming the caller's tenant ({@code QUEEN_TENANT_CLAIM}). */
    String tenantClaim();

    /** Take the tenant from {@code X-Queen-Tenant} (set by a trusted proxy) ({@code QUEEN_TENANT_HEADER_TRUSTED}). */
    boolean tenantHeaderTrusted();
}
