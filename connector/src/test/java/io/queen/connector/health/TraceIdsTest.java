package io.queen.connector.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;

/** The OpenTelemetry trace id becomes the frame's UUID trace id. */
class TraceIdsTest {

    @Test
    void currentSpanTraceIdAsUuid() {
        assertNull(TraceIds.current(), "no active span");
        SpanContext ctx = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331",
                TraceFlags.getSampled(), TraceState.getDefault());
        try (Scope ignored = Span.wrap(ctx).makeCurrent()) {
            assertEquals("0af76519-16cd-43dd-8448-eb211c80319c", TraceIds.current());
        }
    }

    @Test
    void traceparentTraceIdAsUuid() {
        assertEquals("0af76519-16cd-43dd-8448-eb211c80319c",
                TraceIds.ofTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        assertNull(TraceIds.ofTraceparent("0af7651916cd43dd8448eb211c80319c"), "not a traceparent");
        assertNull(TraceIds.ofTraceparent(null));
    }
}
