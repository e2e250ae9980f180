package io.queen.examples.tracing;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;

/**
 * The application's span exporter in the test: Quarkus exports to every CDI {@code SpanExporter} bean
 * ({@code quarkus.otel.traces.exporter=cdi}, its default), here one that keeps them in memory.
 */
public class AppSpans {

    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
