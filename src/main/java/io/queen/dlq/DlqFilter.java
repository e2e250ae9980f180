package io.queen.dlq;

import static io.queen.api.QueryParams.blankToNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Input;
import io.queen.api.Times;
import java.time.Instant;
import java.util.UUID;

/**
 * Which dead letters a browse, count or bulk action means: queue, consumer group, partition (exact names), a text
 * the error contains (case-insensitive) and a failure-time range, each optional (null = any). Built from query
 * parameters or a request body through {@link Input}'s rules, so a bad value is a 400 naming its field. Immutable.
 */
record DlqFilter(String queue, String group, String partition, String error, Instant from, Instant to) {
    /** The longest error text searched for. */
    static final int MAX_ERROR_CHARS = Input.MAX_TOKEN_CHARS;

    static DlqFilter of(String queue, String group, String partition, String error, String from, String to) {
        Instant f = Times.parse(from, "from", null);
        Instant t = Times.parse(to, "to", null);
        String e = error == null || error.isEmpty() ? null : Input.check(error, "error", MAX_ERROR_CHARS);
        return new DlqFilter(name(queue, "queue"), name(group, "consumerGroup"), name(partition, "partition"), e, f, t);
    }

    /** The filter fields of a bulk action's body ({@code queue, consumerGroup, partition, error, from, to}), ordered. */
    static DlqFilter of(JsonNode body) {
        return of(Bodies.optionalString(body, "queue"), Bodies.optionalString(body, "consumerGroup"),
                Bodies.optionalString(body, "partition"), Bodies.optionalString(body, "error"),
                Bodies.optionalString(body, "from"), Bodies.optionalString(body, "to")).ordered();
    }

    /**
     * This filter, refused with a 400 when {@code from} is after {@code to} (for the count and the bulk actions; the
     * browse answers such a range with no rows, as it always has).
     */
    DlqFilter ordered() {
        if (from != null && to != null && from.isAfter(to)) {
            throw ApiException.badRequest("from must not be after to");
        }
        return this;
    }

    private static String name(String value, String field) {
        String v = blankToNull(value);
        return v == null ? null : Input.name(v, field);
    }

    /**
     * A letter's place in the bulk actions' order, its (failed_at, id) key, written as
     * {@code <epoch microseconds>_<id>}: where a bulk action's previous call stopped (the answer's {@code next}, sent
     * back as {@code after}) or the newest letter a count saw (the count's {@code until}, sent back as {@code until}).
     */
    record Key(Instant failedAt, UUID id) {
        static final String BAD = "after must be the next value of a previous answer";
        static final String BAD_UNTIL = "until must be the until value of a count";

        static Key parse(String token) {
            return parse(token, "after", BAD);
        }

        static Key parse(String token, String field, String bad) {
            if (token == null || token.isEmpty()) {
                return null;
            }
            Input.token(token, field);
            int sep = token.indexOf('_');
            try {
                long micros = Long.parseLong(token.substring(0, Math.max(sep, 0)));
                UUID id = UUID.fromString(token.substring(sep + 1));
                Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                        Math.floorMod(micros, 1_000_000L) * 1000L);
                if (!at.isBefore(Times.MIN) && !at.isAfter(Times.MAX) && id.toString().equals(token.substring(sep + 1))) {
                    return new Key(at, id);
                }
            } catch (RuntimeException e) {
                // not a token this broker wrote: the 400 below
            }
            throw ApiException.badRequest(bad);
        }

        String token() {
            long micros = Math.addExact(Math.multiplyExact(failedAt.getEpochSecond(), 1_000_000L),
                    failedAt.getNano() / 1000L);
            return micros + "_" + id;
        }
    }
}
