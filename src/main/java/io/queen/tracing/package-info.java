/**
 * OpenTelemetry spans of the broker and the W3C trace context a message carries (its producer's
 * {@code traceparent}, frame flag 16). Distinct from {@code io.queen.traces}, the application's own message-trace
 * records.
 */
package io.queen.tracing;
