package io.queen.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * Tenant name → tenant id: a name that is a UUID is that id (a proxy may pass ids as they are); any other string
 * maps to its name-based UUID v5 (SHA-1, RFC 9562) under {@link #NAMESPACE}, so the same name is the same tenant
 * on every broker and after every restart. Stateless, thread-safe.
 */
public final class Tenants {
    /** Namespace of tenant names (a fixed random UUID; changing it would move every named tenant). */
    static final UUID NAMESPACE = UUID.fromString("6f1c2b0e-5d2a-4c7e-9a34-1b8f0d3e7c51");

    private Tenants() {
    }

    public static UUID of(String name) {
        if (name.length() == 36) {
            try {
                return UUID.fromString(name);
            } catch (IllegalArgumentException notAUuid) {
                // a 36-character name: hashed like any other
            }
        }
        return v5(NAMESPACE, name);
    }

    static UUID v5(UUID namespace, String name) {
        MessageDigest sha1;
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] ns = new byte[16];
        long msb = namespace.getMostSignificantBits();
        long lsb = namespace.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            ns[i] = (byte) (msb >>> (56 - 8 * i));
            ns[8 + i] = (byte) (lsb >>> (56 - 8 * i));
        }
        sha1.update(ns);
        byte[] h = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
        h[6] = (byte) ((h[6] & 0x0f) | 0x50);
        h[8] = (byte) ((h[8] & 0x3f) | 0x80);
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (h[i] & 0xff);
            lo = (lo << 8) | (h[8 + i] & 0xff);
        }
        return new UUID(hi, lo);
    }
}
