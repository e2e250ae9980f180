package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.queen.connector.app.Producer;
import io.queen.connector.app.TracedRelay;
import io.queen.connector.app.WeldApp;
import io.queen.testing.otel.OtlpReceiver;
import io.queen.testing.otel.OtlpReceiver.ReceivedSpan;
import io.vertx.core.json.JsonObject;

/**
 * One trace across the application and the broker: the broker runs with tracing on and exports its spans over
 * OTLP/HTTP to a receiver in this test; the application (in-process) keeps its spans in memory. A message sent
 * inside a span goes through the broker's push, is consumed, relayed to a second queue and pushed again: every
 * span of that is in the trace, each under the one before it. The test prints the trace as a tree.
 */
class TraceTreeIT extends BrokerTest {

    private static OtlpReceiver otlp;
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @BeforeAll
    static void tracedBroker() throws IOException {
        otlp = new OtlpReceiver();
        broker.close();
        broker = Broker.start("TraceTreeIT", Map.of("QUEEN_TRACING_ENABLED", "true",
                "QUEEN_TRACING_OTLP_ENDPOINT", otlp.endpoint()));
    }

    @AfterAll
    static void stopReceiver() {
        otlp.close();
    }

    @BeforeEach
    void openTelemetry() {
        TracedRelay.CURRENT.clear();
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build());
    }

    @AfterEach
    void resetOpenTelemetry() {
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void oneTraceFromTheProducerThroughTheBrokerToTheOnwardPush() {
        app = WeldApp.start(merge(merge(
                channel("mp.messaging.outgoing.out", "queue", "tt-orders"),
                channel("mp.messaging.incoming.in", "queue", "tt-orders", "consumer-group", "relay", "wait-timeout", "500")),
                channel("mp.messaging.outgoing.onward", "queue", "tt-invoices")), Producer.class, TracedRelay.class);
        Span checkout = GlobalOpenTelemetry.getTracer("test").spanBuilder("checkout").startSpan();
        try (Scope ignored = checkout.makeCurrent()) {
            app.bean(Producer.class).send(new JsonObject().put("id", 1)).toCompletableFuture().join();
        } finally {
            checkout.end();
        }
        String traceId = checkout.getSpanContext().getTraceId();

        ReceivedSpan published = awaitAppSpan(traceId, "tt-orders publish");
        ReceivedSpan received = awaitAppSpan(traceId, "tt-orders receive");
        ReceivedSpan onward = awaitAppSpan(traceId, "tt-invoices publish");
        // the broker's push spans arrive with its exporter's next batch
        await().atMost(Duration.ofSeconds(30)).until(() -> brokerChildOf(published) && brokerChildOf(onward));

        List<ReceivedSpan> trace = trace(traceId);
        System.out.println("trace " + traceId + ":\n" + OtlpReceiver.tree(trace));
        assertEquals(checkout.getSpanContext().getSpanId(), published.parentSpanId());
        assertEquals(published.spanId(), received.parentSpanId(), "consumed under the producer span");
        assertEquals(received.spanId(), onward.parentSpanId(), "relayed under the consumer span");
        assertTrue(otlp.spans.stream().filter(s -> s.traceId().equals(traceId)).count() >= 2,
                "the broker's spans are in the application's trace:\n" + OtlpReceiver.tree(trace));
    }

    private boolean brokerChildOf(ReceivedSpan parent) {
        return otlp.spans.stream().anyMatch(s -> s.parentSpanId().equals(parent.spanId()));
    }

    private ReceivedSpan awaitAppSpan(String traceId, String name) {
        await().atMost(Duration.ofSeconds(15)).until(() -> appSpans().stream()
                .anyMatch(s -> s.traceId().equals(traceId) && s.name().equals(name)));
        return appSpans().stream().filter(s -> s.traceId().equals(traceId) && s.name().equals(name)).findFirst()
                .orElseThrow();
    }

    private List<ReceivedSpan> appSpans() {
        return spans.getFinishedSpanItems().stream().map(s -> new ReceivedSpan("app", s.getTraceId(), s.getSpanId(),
                s.getParentSpanContext().isValid() ? s.getParentSpanId() : "", s.getName(), s.getKind().name()))
                .toList();
    }

    private List<ReceivedSpan> trace(String traceId) {
        List<ReceivedSpan> all = new ArrayList<>(appSpans());
        all.addAll(otlp.spans);
        return all.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }
}
