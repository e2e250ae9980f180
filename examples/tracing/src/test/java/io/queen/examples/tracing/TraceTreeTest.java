package io.queen.examples.tracing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.queen.testing.otel.OtlpReceiver;
import io.queen.testing.otel.OtlpReceiver.ReceivedSpan;
import io.queen.testing.Await;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * One trace from {@code POST /orders} through the broker to the consumers: the application's spans are kept in
 * memory ({@link AppSpans}), the broker's arrive over OTLP/HTTP ({@link TracedBroker}). The test prints the trace
 * as a tree and checks that each span sits under the one that caused it.
 */
@QuarkusTest
@QuarkusTestResource(TracedBroker.class)
class TraceTreeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    InMemorySpanExporter spans;

    @Inject
    Shipping shipping;

    @Test
    void oneTraceFromTheRequestThroughTheBrokerToTheDispatch() throws Exception {
        given().contentType("application/json").body("{\"id\":\"o-1\",\"item\":\"teapot\"}")
                .post("/orders").then().statusCode(204);

        ReceivedSpan request = appSpan("the REST server span",
                s -> s.name().equals("POST /orders") && s.kind().equals("SERVER"));
        String traceId = request.traceId();
        ReceivedSpan published = appSpan(traceId, "orders publish");
        ReceivedSpan received = appSpan(traceId, "orders receive");
        ReceivedSpan shipped = appSpan(traceId, "shipments publish");
        ReceivedSpan dispatched = appSpan(traceId, "shipments receive");
        // the broker's spans arrive with its exporter's next batch
        ReceivedSpan orderPush = brokerSpan("queen push", published);
        ReceivedSpan shipmentPush = brokerSpan("queen push", shipped);

        List<ReceivedSpan> trace = trace(traceId);
        System.out.println("trace " + traceId + ":\n" + OtlpReceiver.tree(trace));
        assertEquals(request.spanId(), published.parentSpanId(), "sent under the request");
        assertEquals("PRODUCER", published.kind());
        assertEquals("SERVER", orderPush.kind());
        assertEquals("CONSUMER", received.kind());
        assertEquals(published.spanId(), received.parentSpanId(), "consumed under the producer span");
        assertEquals(received.spanId(), shipped.parentSpanId(), "shipped under the consumer span");
        assertEquals("SERVER", shipmentPush.kind());
        assertEquals(shipped.spanId(), dispatched.parentSpanId(), "dispatched under the shipment's producer span");
        System.out.println("Span.current() in Shipping.ship: trace " + shipping.traceIdOf("o-1"));
        assertEquals(traceId, shipping.traceIdOf("o-1"), "the method runs inside the consumer span");
    }

    private ReceivedSpan appSpan(String traceId, String name) throws Exception {
        return appSpan(name + " in trace " + traceId, s -> s.traceId().equals(traceId) && s.name().equals(name));
    }

    private ReceivedSpan appSpan(String description, Predicate<ReceivedSpan> wanted) throws Exception {
        return Await.value(description, () -> appSpans().stream().filter(wanted).findFirst().orElse(null), WAIT);
    }

    private ReceivedSpan brokerSpan(String name, ReceivedSpan parent) throws Exception {
        return Await.value("broker span " + name + " under " + parent.name(), () -> TracedBroker.receiver.spans
                .stream().filter(s -> s.name().equals(name) && s.parentSpanId().equals(parent.spanId())
                        && s.traceId().equals(parent.traceId()))
                .findFirst().orElse(null), WAIT);
    }

    private List<ReceivedSpan> appSpans() {
        return spans.getFinishedSpanItems().stream().map(s -> new ReceivedSpan(
                s.getResource().getAttributes().asMap().entrySet().stream()
                        .filter(e -> e.getKey().getKey().equals("service.name")).map(e -> e.getValue().toString())
                        .findFirst().orElse("?"),
                s.getTraceId(), s.getSpanId(), s.getParentSpanContext().isValid() ? s.getParentSpanId() : "",
                s.getName(), s.getKind().name())).toList();
    }

    private List<ReceivedSpan> trace(String traceId) {
        List<ReceivedSpan> all = new ArrayList<>(appSpans());
        all.addAll(TracedBroker.receiver.spans);
        return all.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }
}
