package io.queen.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanLimits;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.queen.config.QueenConfig;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.core.Response;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The broker's spans (docs/operating.md, "Traces"): one per push, pop, ack and transaction request, Kafka
 * request, stream cycle and maintenance cycle, exported over OTLP/HTTP. Off by default, and then no span is built:
 * every method answers {@link Span#getInvalid()}, whose calls do nothing, after one field read.
 *
 * <p>A request's span continues the caller's trace ({@code traceparent} header). A push's span continues the
 * trace of its first message that carries one and links the other messages' producer spans, so a message's trace
 * shows the broker storing it. The SDK is built here rather than by an extension: the broker needs only spans, and
 * a test replaces the exporter with a {@link SpanExporter} bean (exported synchronously there). Thread-safe.
 */
@ApplicationScoped
public class BrokerTracing {

    public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    public static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    public static final AttributeKey<Long> COUNT = AttributeKey.longKey("messaging.batch.message_count");
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.name");

    private final boolean enabled;
    private final int maxLinks;
    private final SdkTracerProvider provider;
    private final Tracer tracer;

    BrokerTracing(QueenConfig config, Instance<SpanExporter> exporters) {
        QueenConfig.Tracing c = config.tracing();
        this.enabled = c.enabled();
        this.maxLinks = c.maxLinks();
        if (!enabled) {
            provider = null;
            tracer = null;
            return;
        }
        if (c.sampleRatio() < 0 || c.sampleRatio() > 1) {
            throw new IllegalArgumentException("queen.tracing.sample-ratio (QUEEN_TRACING_SAMPLE_RATIO) must be"
                    + " between 0 and 1, not " + c.sampleRatio());
        }
        var builder = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                        AttributeKey.stringKey("service.name"), c.serviceName()))))
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(c.sampleRatio())))
                .setSpanLimits(SpanLimits.builder().setMaxNumberOfLinks(maxLinks).build());
        if (exporters.isResolvable()) {
            builder.addSpanProcessor(SimpleSpanProcessor.create(exporters.get()));
        } else {
            builder.addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
                    .setEndpoint(c.otlpEndpoint().replaceAll("/+$", "") + "/v1/traces").build()).build());
        }
        provider = builder.build();
        tracer = provider.get("io.queen.broker");
    }

    /** Whether spans are built at all. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * A started span of {@code kind} continuing the trace of {@code traceparentHeader} (a request header; a
     * malformed one is ignored, as W3C asks), or a new trace.
     */
    public Span start(String name, SpanKind kind, String traceparentHeader) {
        if (!enabled) {
            return Span.getInvalid();
        }
        return builder(name, kind, parse(traceparentHeader)).startSpan();
    }

    /**
     * A started server span for a batch of messages: the parent is {@code header}'s context, or else the first
     * message context of {@code messages}; the other distinct message contexts become links (at most
     * {@code queen.tracing.max-links}).
     */
    public Span startBatch(String name, String header, Iterable<TraceParent> messages) {
        if (!enabled) {
            return Span.getInvalid();
        }
        TraceParent parent = parse(header);
        Set<Long> seen = new HashSet<>();
        SpanBuilder b = null;
        for (TraceParent m : messages) {
            if (m == null) {
                continue;
            }
            if (b == null && parent == null) {
                parent = m;
            }
            if (b == null) {
                b = builder(name, SpanKind.SERVER, parent);
                seen.add(parent.spanId());
            }
            if (seen.size() < maxLinks + 1 && seen.add(m.spanId())) {
                b.addLink(spanContext(m));
            }
        }
        return (b == null ? builder(name, SpanKind.SERVER, parent) : b).startSpan();
    }

    /** Work run inside a span. */
    @FunctionalInterface
    public interface Work<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code work} with {@code span} current and ends the span: an HTTP answer's status becomes
     * {@code http.response.status_code} (a 5xx marks the span failed), an exception is recorded and rethrown.
     */
    public static <T, E extends Exception> T within(Span span, Work<T, E> work) throws E {
        if (!span.isRecording()) {
            return work.run();
        }
        try (Scope ignored = span.makeCurrent()) {
            T result = work.run();
            if (result instanceof Response r) {
                span.setAttribute(HTTP_STATUS, r.getStatus());
                if (r.getStatus() >= 500) {
                    span.setStatus(StatusCode.ERROR);
                }
            }
            return result;
        } catch (Exception e) {
            failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");

    /**
     * Links the current span (a Kafka produce's) to a record's producer span; beyond
     * {@code queen.tracing.max-links} links the SDK drops them.
     */
    public static void linkCurrent(TraceParent message) {
        Span current = Span.current();
        if (current.isRecording()) {
            current.addLink(spanContext(message));
        }
    }

    /** Marks {@code span} failed with {@code error} (the span is ended by the caller). */
    public static void failed(Span span, Throwable error) {
        span.recordException(error);
        span.setStatus(StatusCode.ERROR);
    }

    /** A message's stored trace context, or null when it has no span (only a trace id, or nothing). */
    public static TraceParent of(UUID traceId, long spanId, byte flags) {
        return spanId == 0 || traceId == null ? null : new TraceParent(traceId, spanId, flags);
    }

    void shutdown(@Observes ShutdownEvent ev) {
        if (provider != null) {
            provider.shutdown().join(5, TimeUnit.SECONDS);
        }
    }

    private SpanBuilder builder(String name, SpanKind kind, TraceParent parent) {
        SpanBuilder b = tracer.spanBuilder(name).setSpanKind(kind).setAttribute(SYSTEM, "queen");
        return parent == null ? b.setNoParent()
                : b.setParent(Context.root().with(Span.wrap(spanContext(parent))));
    }

    private static SpanContext spanContext(TraceParent p) {
        UUID t = p.traceId();
        return SpanContext.createFromRemoteParent(hex(t.getMostSignificantBits()) + hex(t.getLeastSignificantBits()),
                hex(p.spanId()), TraceFlags.fromByte(p.flags()), TraceState.getDefault());
    }

    private static String hex(long v) {
        String s = Long.toHexString(v);
        return "0".repeat(16 - s.length()) + s;
    }

    private static TraceParent parse(String header) {
        if (header == null) {
            return null;
        }
        try {
            return TraceParent.parse(header);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
