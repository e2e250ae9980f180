package io.queen.connector.health;

/**
 * Reads the current OpenTelemetry trace id, formatted as the UUID a Queen frame carries, when OpenTelemetry is
 * on the class path; answers null otherwise (silently: OpenTelemetry is optional).
 * <p>
 * Stateless apart from a class-presence flag computed once; thread-safe.
 */
public final class TraceIds {

    private static final boolean OTEL = present("io.opentelemetry.api.trace.Span");

    private TraceIds() {
    }

    /** The trace id of {@code traceparent} when it is one, otherwise {@link #current()}. */
    public static String current(String traceparent) {
        String id = ofTraceparent(traceparent);
        return id != null ? id : current();
    }

    /** The active span's trace id as {@code xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}, or null. */
    public static String current() {
        if (!OTEL) {
            return null;
        }
        try {
            return Otel.traceId();
        } catch (LinkageError e) {
            return null;
        }
    }

    /**
     * The trace id of a W3C {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}) as a UUID, or null when the
     * value is not one.
     */
    public static String ofTraceparent(String traceparent) {
        if (traceparent == null || traceparent.length() != 55 || traceparent.charAt(2) != '-'
                || traceparent.charAt(35) != '-' || traceparent.charAt(52) != '-') {
            return null;
        }
        return asUuid(traceparent.substring(3, 35));
    }

    static String asUuid(String hex32) {
        if (hex32 == null || hex32.length() != 32) {
            return null;
        }
        return hex32.substring(0, 8) + "-" + hex32.substring(8, 12) + "-" + hex32.substring(12, 16) + "-"
                + hex32.substring(16, 20) + "-" + hex32.substring(20);
    }

    /** Whether {@code className} can be loaded (an optional library is on the class path). */
    public static boolean present(String className) {
        try {
            Class.forName(className, false, TraceIds.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Isolated so that the OpenTelemetry types are only resolved when the library is there. */
    private static final class Otel {
        static String traceId() {
            io.opentelemetry.api.trace.SpanContext ctx = io.opentelemetry.api.trace.Span.current().getSpanContext();
            return ctx.isValid() ? asUuid(ctx.getTraceId()) : null;
        }
    }
}
