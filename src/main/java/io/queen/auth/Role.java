package io.queen.auth;

import java.util.Collection;

/**
 * The roles a token may carry: {@code admin} ⊇ {@code read-write} ⊇ {@code read-only}; {@code write-only} may only
 * produce (push). A claim names a role only by its exact lowercase name ({@code Admin} names none), as the
 * reference broker compares them. Immutable.
 */
public enum Role {
    READ_ONLY("read-only"), WRITE_ONLY("write-only"), READ_WRITE("read-write"), ADMIN("admin");

    private final String claim;

    Role(String claim) {
        this.claim = claim;
    }

    public String claim() {
        return claim;
    }

    public boolean allows(Access.Level level) {
        return switch (level) {
            case PUBLIC -> true;
            case READ -> this != WRITE_ONLY;
            case PRODUCE -> this != READ_ONLY;
            case WRITE -> this == READ_WRITE || this == ADMIN;
            case ADMIN -> this == ADMIN;
        };
    }

    /** The role a claim value names exactly, or null for any other value (another case included). */
    public static Role of(String claim) {
        for (Role r : values()) {
            if (r.claim.equals(claim)) {
                return r;
            }
        }
        return null;
    }

    /**
     * The union of several role claims: a caller with {@code read-only} and {@code write-only} may read and
     * produce, which is what {@code read-write} allows. Null when none is known.
     */
    public static Role strongest(Collection<String> claims) {
        boolean read = false;
        boolean produce = false;
        Role best = null;
        for (String c : claims) {
            Role r = of(c);
            if (r == null) {
                continue;
            }
            read |= r.allows(Access.Level.READ);
            produce |= r.allows(Access.Level.PRODUCE);
            if (best == null || r.ordinal() > best.ordinal()) {
                best = r;
            }
        }
        if (best == WRITE_ONLY && read || best == READ_ONLY && produce) {
            return READ_WRITE;
        }
        return best;
    }
}
