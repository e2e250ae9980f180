package io.queen.connector.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.queen.connector.health.TraceIds;
import io.smallrye.mutiny.Multi;
import io.smallrye.reactive.messaging.TracingMetadata;
import io.smallrye.reactive.messaging.providers.MetadataInjectableMessage;

/**
 * The spans of the connector against the broker's trace contract, without a broker: the producer span's
 * {@code traceparent} (as pushed) given back with a popped message makes the consumer span its child, and the
 * consumer span is current while the message is emitted.
 */
class MessageTracingTest {

    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @BeforeEach
    void openTelemetry() {
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build());
    }

    @AfterEach
    void reset() {
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void consumerSpanIsTheChildOfTheProducerSpanThroughTheTraceparent() {
        MessageTracing producer = MessageTracing.producer(true);
        MessageTracing consumer = MessageTracing.consumer(true);
        assertTrue(producer.enabled() && consumer.enabled());

        Span root = GlobalOpenTelemetry.getTracer("test").spanBuilder("checkout").startSpan();
        String traceparent;
        try (Scope ignored = root.makeCurrent()) {
            traceparent = producer.traceOutgoing(Message.of("order"), QueenTrace.outgoing("orders", "p1"));
        } finally {
            root.end();
        }
        SpanData published = only(SpanKind.PRODUCER);
        assertEquals("00-" + root.getSpanContext().getTraceId() + "-" + published.getSpanId() + "-",
                traceparent.substring(0, 53), "the pushed traceparent is the producer span's context");
        assertEquals(root.getSpanContext().getSpanId(), published.getParentSpanId(), "parent: the current span");
        assertEquals("orders publish", published.getName());
        assertEquals("queen", published.getAttributes().get(SYSTEM));
        assertEquals("orders", published.getAttributes().get(DESTINATION));
        assertEquals(TraceIds.ofTraceparent(traceparent), TraceIds.current(traceparent),
                "the traceId sent with it is the span's trace id");

        // the broker answers the message with the traceparent it was pushed with
        Injectable popped = new Injectable();
        consumer.traceIncoming(popped, QueenTrace.incoming("orders", "p1", "billing", "m-1", traceparent));
        SpanData received = only(SpanKind.CONSUMER);
        assertEquals("orders receive", received.getName());
        assertEquals(published.getTraceId(), received.getTraceId());
        assertEquals(published.getSpanId(), received.getParentSpanId(), "parent: the producer span");
        assertEquals("queen", received.getAttributes().get(SYSTEM));
        assertEquals("orders", received.getAttributes().get(DESTINATION));
        assertEquals("billing", received.getAttributes().get(QueenSpanAttributes.CONSUMER_GROUP));

        SpanContext inMetadata = TracingMetadata.fromMessage(popped)
                .map(t -> Span.fromContext(t.getCurrentContext()).getSpanContext()).orElseThrow();
        assertEquals(received.getSpanId(), inMetadata.getSpanId(), "the message carries the consumer span");

        List<SpanContext> current = new CopyOnWriteArrayList<>();
        consumer.currentWhileEmitted(Multi.createFrom().<Message<?>> item(popped))
                .subscribe().with(m -> current.add(Span.current().getSpanContext()));
        assertEquals(received.getSpanId(), current.get(0).getSpanId(), "current while the message is emitted");
        assertTrue(!Span.current().getSpanContext().isValid(), "and only then");
    }

    @Test
    void aMessageWithoutTraceparentStartsANewTrace() {
        Injectable popped = new Injectable();
        MessageTracing.consumer(true).traceIncoming(popped, QueenTrace.incoming("orders", null, "g", "m-2", null));
        SpanData received = only(SpanKind.CONSUMER);
        assertEquals(SpanContext.getInvalid().getSpanId(), received.getParentSpanId(), "a root span");
    }

    @Test
    void disabledTracingMakesNoSpanAndSendsNoTraceparent() {
        MessageTracing off = MessageTracing.producer(false);
        assertNull(off.traceOutgoing(Message.of("x"), QueenTrace.outgoing("orders", null)));
        Injectable popped = new Injectable();
        MessageTracing.consumer(false).traceIncoming(popped, QueenTrace.incoming("orders", null, "g", "m", null));
        assertTrue(TracingMetadata.fromMessage(popped).isEmpty());
        assertEquals(0, spans.getFinishedSpanItems().size());
    }

    private SpanData only(SpanKind kind) {
        List<SpanData> found = spans.getFinishedSpanItems().stream().filter(s -> s.getKind() == kind).toList();
        assertEquals(1, found.size(), "one " + kind + " span: " + spans.getFinishedSpanItems());
        return found.get(0);
    }

    /** A received message that takes metadata in place, as QueenMessage does. */
    private static final class Injectable implements MetadataInjectableMessage<String> {
        private Metadata metadata = Metadata.empty();

        @Override
        public String getPayload() {
            return "order";
        }

        @Override
        public Metadata getMetadata() {
            return metadata;
        }

        @Override
        public void injectMetadata(Object extra) {
            metadata = metadata.with(extra);
        }
    }

}
