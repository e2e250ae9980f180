package io.queen.examples.billing;

/** An order as the shop sends it: JSON {@code {"id": ..., "customerId": ..., "amountCents": ...}}. Immutable. */
public record Order(String id, String customerId, long amountCents) {
}
