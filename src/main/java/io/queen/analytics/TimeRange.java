package io.queen.analytics;

import io.queen.api.ApiException;
import io.queen.api.Times;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The {@code from}/{@code to} window of an analytics route and its bucket size. Invariants: {@code from <= to}, the
 * window spans at most {@link #MAX_RANGE}, and {@code bucketMinutes} is the smallest of {@link #BUCKETS} giving at
 * most {@link #MAX_POINTS} buckets, so a series stays small whatever the caller asks. Immutable.
 */
public record TimeRange(Instant from, Instant to, int bucketMinutes) {
    public static final Duration MAX_RANGE = Duration.ofDays(31);
    public static final int MAX_POINTS = 1500;
    static final int[] BUCKETS = {1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440};

    /** Parses the query values; absent {@code to} = now, absent {@code from} = {@code to - defaultSpan}. */
    public static TimeRange parse(String fromParam, String toParam, Duration defaultSpan) {
        Instant to = Times.parse(toParam, "to", Instant.now());
        Instant from = Times.parse(fromParam, "from", to.minus(defaultSpan));
        if (from.isAfter(to)) {
            throw ApiException.badRequest("from must not be after to");
        }
        if (Duration.between(from, to).compareTo(MAX_RANGE) > 0) {
            throw ApiException.badRequest("from/to: the range must not exceed 31 days");
        }
        return new TimeRange(from, to, bucketFor(Duration.between(from, to)));
    }

    static int bucketFor(Duration span) {
        long minutes = Math.max(1, (span.toSeconds() + 59) / 60);
        for (int b : BUCKETS) {
            if ((minutes + b - 1) / b <= MAX_POINTS) {
                return b;
            }
        }
        return BUCKETS[BUCKETS.length - 1];
    }

    /** The first minute bucket that overlaps the window. */
    public OffsetDateTime fromMinute() {
        return OffsetDateTime.ofInstant(from, ZoneOffset.UTC).withSecond(0).withNano(0);
    }

    public OffsetDateTime toTime() {
        return OffsetDateTime.ofInstant(to, ZoneOffset.UTC);
    }
}
