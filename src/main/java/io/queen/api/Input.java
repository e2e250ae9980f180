package io.queen.api;

import java.util.Collection;
import java.util.Collections;

/**
 * The one check every client string passes before the broker stores it or binds it to SQL: no NUL (PostgreSQL
 * text cannot hold U+0000 and the driver would fail the whole statement), well-formed UTF-16 (a lone surrogate
 * is encoded as '?' by the driver and by {@code String.getBytes}, so two distinct values would silently become
 * one), and a length limit. A failure is a 400 naming the field. Stateless, thread-safe; the accepting path is one
 * char loop and allocates nothing.
 */
public final class Input {
    /** Queue, partition, namespace, task and consumer-group names (the schema's VARCHAR(255)). */
    public static final int MAX_NAME_CHARS = 255;
    /** Lease ids, statuses, ids in paths and other short tokens. */
    public static final int MAX_TOKEN_CHARS = 1024;
    /** Free text such as an ack's {@code error} (stored on the dead letter). */
    public static final int MAX_TEXT_CHARS = 65_535;

    private Input() {
    }

    /**
     * What is wrong with {@code value} as the end of a 400 message ({@code field + problem}), or null when it is
     * acceptable. A null value is acceptable (absence is the caller's rule).
     */
    public static String problem(String value, int maxChars) {
        if (value == null) {
            return null;
        }
        int n = value.length();
        if (n > maxChars) {
            return " is longer than " + maxChars + " characters";
        }
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c == 0) {
                return " must not contain NUL (U+0000)";
            }
            if (Character.isSurrogate(c)) {
                // a high surrogate must be followed by a low one; a low one must follow a high one
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                } else {
                    return " must be valid Unicode (lone surrogate at index " + i + ")";
                }
            }
        }
        return null;
    }

    /**
     * Why {@code values} cannot be stored, as a message naming {@code field} (the Kafka listener answers it with
     * INVALID_REQUEST); null when they can. Values kept beside a Kafka group (client, member and instance ids, racks,
     * protocol and topic names) are saved in PostgreSQL, whose text and jsonb hold no U+0000: one such value would
     * fail every save of its group, and the group would never form. Free text's limit applies; null values are
     * absent ones.
     */
    public static String unstorable(String field, Collection<String> values) {
        for (String v : values) {
            String problem = problem(v, MAX_TEXT_CHARS);
            if (problem != null) {
                return field + problem;
            }
        }
        return null;
    }

    /** {@link #unstorable(String, Collection)} of one value. */
    public static String unstorable(String field, String value) {
        return unstorable(field, Collections.singletonList(value));
    }

    /** The first of {@code problems} that is not null, or null: several fields' checks, the first failure told. */
    public static String firstProblem(String... problems) {
        for (String p : problems) {
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** True when {@link #problem} finds nothing (nothing is allocated). */
    public static boolean isValid(String value, int maxChars) {
        return problem(value, maxChars) == null;
    }

    /** Returns {@code value} or throws a 400 {@code "<field> <problem>"}. */
    public static String check(String value, String field, int maxChars) {
        String p = problem(value, maxChars);
        if (p != null) {
            throw ApiException.badRequest(field + p);
        }
        return value;
    }

    /** A name (queue, partition, group, namespace, task): {@link #MAX_NAME_CHARS}. */
    public static String name(String value, String field) {
        return check(value, field, MAX_NAME_CHARS);
    }

    /** A token (lease id, status, id): {@link #MAX_TOKEN_CHARS}. */
    public static String token(String value, String field) {
        return check(value, field, MAX_TOKEN_CHARS);
    }

    /** Free text: {@link #MAX_TEXT_CHARS}. */
    public static String text(String value, String field) {
        return check(value, field, MAX_TEXT_CHARS);
    }
}
