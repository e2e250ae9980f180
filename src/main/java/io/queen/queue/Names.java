package io.queen.queue;

import io.queen.api.ApiException;
import io.queen.api.Input;
import java.nio.charset.StandardCharsets;

/**
 * Rules for the names clients send. Queue and partition names: 1..255 characters, no control characters (the
 * fusion keys join names with 0x1F) and no '/' (pop paths could not address them). Transaction ids: 1..65535
 * UTF-8 bytes (the frame stores a u16 length), no control characters. Both must be well-formed UTF-16
 * ({@link Input}): a lone surrogate would be encoded as '?' and two names or ids would become one. Stateless, thread-safe.
 */
public final class Names {
    public static final int MAX_NAME_CHARS = 255;
    public static final int MAX_TXN_BYTES = 0xFFFF;
    public static final String QUEUE_MODE = "__QUEUE_MODE__";
    public static final String DEFAULT_PARTITION = "Default";

    private Names() {
    }

    /** Validates a queue or partition name; {@code field} names it in the 400 message. */
    public static String requireName(String value, String field) {
        String problem = nameProblem(value);
        if (problem != null) {
            throw ApiException.badRequest(field + problem);
        }
        return value;
    }

    /** True when {@link #requireName} accepts {@code value} (no message is built). */
    public static boolean isValidName(String value) {
        return nameProblem(value) == null;
    }

    /** What {@link #requireName} rejects in {@code value}, as the end of its message, or null. */
    private static String nameProblem(String value) {
        if (value == null || value.isEmpty()) {
            return " must be a non-empty string";
        }
        if (value.length() > MAX_NAME_CHARS) {
            return " is longer than " + MAX_NAME_CHARS + " characters";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                return " must not contain control characters";
            }
            if (c == '/') {
                return " must not contain '/'";
            }
        }
        return Input.problem(value, MAX_NAME_CHARS);
    }

    /**
     * The UTF-8 bytes of a transaction id {@link #requireTransactionId} accepts, or null when it would reject it
     * (the caller then calls it for the error, so the field path is built only for a bad id).
     */
    public static byte[] validTransactionIdUtf8(String value) {
        if (transactionIdCharsProblem(value) != null) {
            return null;
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return utf8.length > MAX_TXN_BYTES ? null : utf8;
    }

    /** Validates a transaction id and returns its UTF-8 bytes. */
    public static byte[] requireTransactionId(String value, String field) {
        byte[] utf8 = validTransactionIdUtf8(value);
        if (utf8 != null) {
            return utf8;
        }
        String problem = transactionIdCharsProblem(value);
        throw ApiException.badRequest(field + (problem != null ? problem
                : " is longer than " + MAX_TXN_BYTES + " UTF-8 bytes"));
    }

    /** What {@link #requireTransactionId} rejects in the characters of {@code value} (not its length), or null. */
    private static String transactionIdCharsProblem(String value) {
        if (value == null || value.isEmpty()) {
            return " must be a non-empty string";
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return " must not contain control characters";
            }
        }
        // lone surrogates: the UTF-8 encoder would turn each into '?', merging distinct ids
        return Input.problem(value, Integer.MAX_VALUE);
    }
}
