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

    static String asUuid(String hex32) {
        if (hex32 == null || hex32.length() != 32) {
            return null;
        }
        return hex32.substring(0, 8) + "-" + hex32.substring(8, 12) + "-" + hex32.substring(12, 16) + "-"
                + hex32.substring(16, 20) + "-" + hex32.substring(20);
    }

    static boolean present(String className) {
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
