package io.queen.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.UUID;

/**
 * The span exporter of the test brokers: spans in memory, exported as each ends (used only where a test profile
 * turns tracing on). Tests select their spans by trace id, so spans of other tests never count.
 */
public class SpanCapture {
    static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();

    @Produces
    @Singleton
    SpanExporter exporter() {
        return EXPORTER;
    }

    /** The finished spans of trace {@code traceId}. */
    static List<SpanData> trace(UUID traceId) {
        String hex = traceId.toString().replace("-", "");
        return EXPORTER.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(hex)).toList();
    }

    /** The finished spans called {@code name} that link to span {@code spanId} of trace {@code traceId}. */
    static List<SpanData> linking(String name, UUID traceId, String spanId) {
        String hex = traceId.toString().replace("-", "");
        return EXPORTER.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name))
                .filter(s -> s.getLinks().stream().anyMatch(l -> l.getSpanContext().getTraceId().equals(hex)
                        && l.getSpanContext().getSpanId().equals(spanId)))
                .toList();
    }
}
