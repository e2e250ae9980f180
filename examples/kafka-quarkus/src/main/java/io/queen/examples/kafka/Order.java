package io.queen.examples.kafka;

/** An order: {@code seq} numbers a customer's orders (0, 1, 2, ...), the order they were placed in. */
public record Order(String id, String customerId, long seq, long amountCents) {
}
