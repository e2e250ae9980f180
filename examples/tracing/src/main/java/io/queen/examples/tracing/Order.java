package io.queen.examples.tracing;

/** An order as the shop sends it: JSON {@code {"id": ..., "item": ...}}. Immutable. */
public record Order(String id, String item) {
}
