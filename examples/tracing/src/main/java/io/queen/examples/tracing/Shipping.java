package io.queen.examples.tracing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;

import io.opentelemetry.api.trace.Span;
import io.smallrye.common.annotation.NonBlocking;

/**
 * Turns each order of queue {@code orders} into a shipment on queue {@code shipments}. The shipment keeps the
 * order's metadata (its ack and its {@code TracingMetadata}), so its producer span is a child of the order's
 * consumer span. Non-blocking (Quarkus would run a method of this signature on a worker thread): it is called
 * while the channel emits the order. Remembers per order the trace id {@code Span.current()} had in the method.
 * Thread-safe (a concurrent map).
 */
@ApplicationScoped
public class Shipping {

    private final Map<String, String> traceIds = new ConcurrentHashMap<>();

    @Incoming("orders")
    @Outgoing("shipments")
    @NonBlocking
    public Shipment ship(Order order) {
        traceIds.put(order.id(), Span.current().getSpanContext().getTraceId());
        return Shipment.of(order);
    }

    /** The trace id {@code Span.current()} had while {@code orderId} was shipped, or null. */
    public String traceIdOf(String orderId) {
        return traceIds.get(orderId);
    }
}
