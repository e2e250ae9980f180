package io.queen.connector.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.vertx.core.json.JsonObject;

/**
 * A non-blocking processor from channel {@code in} to channel {@code onward}: records the span current while it
 * runs and relays the payload marked {@code relayed}. Thread-safe (the record is a concurrent list).
 */
@ApplicationScoped
public class TracedRelay {

    /** The span current in each invocation, in arrival order. */
    public static final List<SpanContext> CURRENT = new CopyOnWriteArrayList<>();

    @Incoming("in")
    @Outgoing("onward")
    public JsonObject relay(JsonObject payload) {
        CURRENT.add(Span.current().getSpanContext());
        return payload.copy().put("relayed", true);
    }
}
