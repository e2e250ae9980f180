package io.queen.queue;

import io.queen.api.ApiException;
import java.nio.charset.StandardCharsets;

/**
 * Rules for the names clients send. Queue and partition names: 1..255 characters, no control characters (the
 * fusion keys join names with 0x1F) and no '/' (pop paths could not address them). Transaction ids: 1..65535
 * UTF-8 bytes (the frame stores a u16 length), no control characters. Stateless, thread-safe.
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
        if (value == null || value.isEmpty()) {
            throw ApiException.badRequest(field + " must be a non-empty string");
        }
        if (value.length() > MAX_NAME_CHARS) {
            throw ApiException.badRequest(field + " is longer than " + MAX_NAME_CHARS + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw ApiException.badRequest(field + " must not contain control characters");
            }
            if (c == '/') {
                throw ApiException.badRequest(field + " must not contain '/'");
            }
        }
        return value;
    }

    /** True when {@link #requireName} accepts {@code value} (no message is built). */
    public static boolean isValidName(String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_NAME_CHARS) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c) || c == '/') {
                return false;
            }
        }
        return true;
    }

    /**
     * The UTF-8 bytes of a transaction id {@link #requireTransactionId} accepts, or null when it would reject it
     * (the caller then calls it for the error, so the field path is built only for a bad id).
     */
    public static byte[] validTransactionIdUtf8(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return null;
            }
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return utf8.length > MAX_TXN_BYTES ? null : utf8;
    }

    /** Validates a transaction id and returns its UTF-8 bytes. */
    public static byte[] requireTransactionId(String value, String field) {
        if (value == null || value.isEmpty()) {
            throw ApiException.badRequest(field + " must be a non-empty string");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw ApiException.badRequest(field + " must not contain control characters");
            }
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_TXN_BYTES) {
            throw ApiException.badRequest(field + " is longer than " + MAX_TXN_BYTES + " UTF-8 bytes");
        }
        return utf8;
    }
}
