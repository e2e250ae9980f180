package io.queen.examples.tracing;

/** The shipment of one order. Immutable. */
public record Shipment(String orderId, String item) {

    public static Shipment of(Order order) {
        return new Shipment(order.id(), order.item());
    }
}
