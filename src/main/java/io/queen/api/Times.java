package io.queen.api;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Timestamps on the wire (API spec 1.8): rendered in true UTC as {@code YYYY-MM-DDTHH:MM:SS.mmmZ}; inputs are
 * ISO-8601 (with or without fraction or offset, or a plain date). Stateless, thread-safe.
 */
public final class Times {
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private Times() {
    }

    public static String millis(Instant t) {
        return t == null ? null : MILLIS.format(t);
    }

    public static String millis(OffsetDateTime t) {
        return t == null ? null : MILLIS.format(t.toInstant());
    }

    /** Parses an optional query/body timestamp; absent or blank -> {@code def}; unparseable -> 400 naming the field. */
    public static Instant parse(String value, String field, Instant def) {
        if (value == null || value.isBlank()) {
            return def;
        }
        String v = value.strip();
        try {
            return OffsetDateTime.parse(v).toInstant();
        } catch (DateTimeParseException e) {
            try {
                return java.time.LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                try {
                    return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
                } catch (DateTimeParseException e3) {
                    throw ApiException.badRequest(field + " must be an ISO-8601 timestamp");
                }
            }
        }
    }
}
