package io.queen.auth;

import io.queen.config.QueenConfig;
import jakarta.inject.Singleton;
import java.util.UUID;

/**
 * The current request's {@link Caller}, for resources and services running on the request's thread. With access
 * control off (no JWT, no trusted tenant header) every request is the default tenant's anonymous caller: a
 * constant, no per-request state. Thread-safe.
 */
@Singleton
public class Callers {
    private final boolean active;
    private final Caller anonymous;
    private final RequestCaller current;

    Callers(AuthConfig config, QueenConfig queen, RequestCaller current) {
        this.active = config.enabled() || config.tenantHeaderTrusted();
        this.anonymous = new Caller(UUID.fromString(queen.defaultTenant()), null, null);
        this.current = current;
    }

    /** Whether requests are filtered at all (JWT on, or tenants from a trusted header). */
    public boolean active() {
        return active;
    }

    /** The default tenant: the one whose callers see the whole cluster (broker-wide figures, analytics). */
    public UUID defaultTenant() {
        return anonymous.tenant();
    }

    /** Caller of requests that carry no identity. */
    public Caller anonymous() {
        return anonymous;
    }

    public Caller current() {
        if (!active) {
            return anonymous;
        }
        Caller c = current.get();
        return c == null ? anonymous : c;
    }

    /** The tenant every name of the current request resolves in. */
    public UUID tenant() {
        return current().tenant();
    }

    /** The subject stamped on pushed messages: the token's {@code sub}; null with authentication off. */
    public String producerSub() {
        return current().subject();
    }

    void set(Caller caller) {
        current.set(caller);
    }
}
