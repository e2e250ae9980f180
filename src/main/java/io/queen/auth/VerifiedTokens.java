package io.queen.auth;

import io.queen.cache.CappedMap;

/**
 * Tokens already verified, by their exact text, with the {@link Caller} they resolved to and their {@code exp}:
 * a client sends the same token on every request, and a hit skips the signature check and the claim parsing
 * (a hash lookup instead of tens of microseconds). A hit is only the very bytes that passed verification, and
 * only until {@code exp}; after that the token is verified again (and refused). Bounded: when full it is emptied
 * (a burst of distinct tokens then costs one verification each, as without the cache). Thread-safe.
 */
final class VerifiedTokens {
    private record Entry(Caller caller, long expiresAtSeconds) {
    }

    private final CappedMap<String, Entry> byToken;

    VerifiedTokens(int max) {
        this.byToken = new CappedMap<>(max);
    }

    /** The caller of a verified, unexpired token; null when unknown or expired. */
    Caller get(String token, long nowSeconds) {
        Entry e = byToken.get(token);
        if (e == null) {
            return null;
        }
        if (nowSeconds >= e.expiresAtSeconds()) {
            byToken.remove(token, e);
            return null;
        }
        return e.caller();
    }

    void put(String token, Caller caller, long expiresAtSeconds, long nowSeconds) {
        if (expiresAtSeconds <= nowSeconds) {
            return;
        }
        byToken.put(token, new Entry(caller, expiresAtSeconds));
    }

    int size() {
        return byToken.size();
    }
}
