package io.queen.api;

import java.util.UUID;

/** Ids from paths and bodies. Stateless, thread-safe. */
public final class Ids {
    private Ids() {
    }

    /** A string that is not a UUID cannot name a row: callers answer it like a missing one. */
    public static UUID uuidOrNull(String s) {
        try {
            return s == null ? null : UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
