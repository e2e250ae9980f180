package io.queen.api;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

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

    /** Earliest accepted timestamp input: the epoch (nothing the broker stores is older). */
    public static final Instant MIN = Instant.EPOCH;
    /** Latest accepted timestamp input: the end of year 9999 (PostgreSQL and the renderer stay 4-digit). */
    public static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999999Z");

    /**
     * Parses an optional query/body timestamp; absent or blank -> {@code def}; unparseable or outside
     * [{@link #MIN}, {@link #MAX}] -> 400 naming the field (date arithmetic on a year like -999999999 overflows).
     */
    public static Instant parse(String value, String field, Instant def) {
        if (value == null || value.isBlank()) {
            return def;
        }
        Instant t = parseOrNull(value);
        if (t == null) {
            throw ApiException.badRequest(field + " must be an ISO-8601 timestamp");
        }
        return inRange(t, field);
    }

    /**
     * Like {@link #parse} for the routes whose spec says an unparseable value falls back to the default: null when
     * absent or unparseable; a parseable value outside the range is still a 400.
     */
    public static Instant parseLenient(String value, String field) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant t = parseOrNull(value);
        return t == null ? null : inRange(t, field);
    }

    private static Instant inRange(Instant t, String field) {
        if (t.isBefore(MIN) || t.isAfter(MAX)) {
            throw ApiException.badRequest(field + " must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z");
        }
        return t;
    }

    private static Instant parseOrNull(String value) {
        String v = value.strip();
        try {
            return OffsetDateTime.parse(v).toInstant();
        } catch (DateTimeException e) {
            try {
                return java.time.LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
            } catch (DateTimeException e2) {
                try {
                    return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
                } catch (DateTimeException | ArithmeticException e3) {
                    return null;
                }
            }
        } catch (ArithmeticException e) {
            return null;
        }
    }
}
