package io.queen.connector.tracing;

import java.util.concurrent.Flow;

import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.health.TraceIds;
import io.smallrye.mutiny.Multi;

/**
 * The producer or consumer spans of one channel, made as SmallRye's Kafka connector makes them: with
 * {@code TracingUtils} of {@code smallrye-reactive-messaging-otel} and an OpenTelemetry {@code Instrumenter} using
 * the messaging semantic conventions ({@code messaging.system=queen}, {@code messaging.destination.name} = the
 * queue). The producer span writes its W3C {@code traceparent} into the pushed item; the consumer span is a child
 * of the context the popped message's {@code traceparent} carries, and the message gets a {@code TracingMetadata}
 * holding it.
 * <p>
 * OpenTelemetry stays optional: without {@code smallrye-reactive-messaging-otel} (and the OpenTelemetry API and
 * instrumentation API it brings) on the class path, or with {@code tracing-enabled=false}, every method is a no-op.
 * The OpenTelemetry types are only touched in the nested {@code Otel} class, resolved when the library is there.
 * <p>
 * Immutable after construction; thread-safe (the instrumenter is).
 */
public final class MessageTracing {

    /** The one propagation field the broker stores and answers: the W3C trace context. */
    static final String TRACEPARENT = "traceparent";

    private static final boolean AVAILABLE = TraceIds.present("io.smallrye.reactive.messaging.tracing.TracingUtils")
            && TraceIds.present("io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessagingAttributesGetter");

    /** Tracing off: no span, messages pass unchanged. */
    public static final MessageTracing OFF = new MessageTracing(null);

    /** An {@code Instrumenter<QueenTrace, Void>}, typed Object so that OpenTelemetry stays optional; null = off. */
    private final Object instrumenter;

    private MessageTracing(Object instrumenter) {
        this.instrumenter = instrumenter;
    }

    /** Producer spans ({@code <queue> publish}) for an outgoing channel, or {@link #OFF}. */
    public static MessageTracing producer(boolean enabled) {
        return create(enabled, true);
    }

    /** Consumer spans ({@code <queue> receive}) for an incoming channel, or {@link #OFF}. */
    public static MessageTracing consumer(boolean enabled) {
        return create(enabled, false);
    }

    private static MessageTracing create(boolean enabled, boolean producer) {
        if (!enabled || !AVAILABLE) {
            return OFF;
        }
        try {
            return new MessageTracing(Otel.instrumenter(producer));
        } catch (LinkageError e) {
            return OFF;   // classes present but not usable together: no spans rather than a broken channel
        }
    }

    public boolean enabled() {
        return instrumenter != null;
    }

    /**
     * Makes the producer span of {@code message}: a child of the message's {@code TracingMetadata} when it has one,
     * otherwise of the current context. Returns the {@code traceparent} to push with it, or null (tracing off).
     */
    public String traceOutgoing(Message<?> message, QueenTrace trace) {
        if (instrumenter == null) {
            return null;
        }
        Otel.traceOutgoing(instrumenter, message, trace);
        return trace.traceparent();
    }

    /**
     * Makes the producer span of an output written in a transaction for {@code input}: a child of the current span
     * when there is one (the consumer span while a non-blocking {@code @Incoming} method runs, or the application's
     * own), otherwise of the input's {@code TracingMetadata} (a {@code @Blocking} method). Returns the
     * {@code traceparent} to push, or null.
     */
    public String traceOutput(Message<?> input, QueenTrace trace) {
        if (instrumenter == null) {
            return null;
        }
        Otel.traceOutput(instrumenter, input, trace);
        return trace.traceparent();
    }

    /**
     * Makes the consumer span of a received {@code message} (which must accept injected metadata) and attaches
     * the {@code TracingMetadata} holding it.
     */
    public void traceIncoming(Message<?> message, QueenTrace trace) {
        if (instrumenter != null) {
            Otel.traceIncoming(instrumenter, message, trace);
        }
    }

    /**
     * The stream with each message's consumer span current while the message is handed downstream: SmallRye runs
     * a non-blocking {@code @Incoming} method in that call, so {@code Span.current()} is the consumer span there.
     */
    public <M extends Message<?>> Multi<M> currentWhileEmitted(Multi<M> messages) {
        return instrumenter == null ? messages : Otel.currentWhileEmitted(messages);
    }

    /** Isolated so that the OpenTelemetry types are only resolved when the library is there. */
    private static final class Otel {

        static Object instrumenter(boolean producer) {
            jakarta.enterprise.inject.Instance<io.opentelemetry.api.OpenTelemetry> beans = openTelemetryBeans();
            io.opentelemetry.api.OpenTelemetry otel = beans != null
                    ? io.smallrye.reactive.messaging.tracing.TracingUtils.getOpenTelemetry(beans)
                    : io.opentelemetry.api.GlobalOpenTelemetry.get();
            io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessageOperation operation = producer
                    ? io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessageOperation.PUBLISH
                    : io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessageOperation.RECEIVE;
            QueenSpanAttributes attributes = new QueenSpanAttributes();
            io.opentelemetry.instrumentation.api.instrumenter.InstrumenterBuilder<QueenTrace, Void> builder =
                    io.opentelemetry.instrumentation.api.instrumenter.Instrumenter.<QueenTrace, Void> builder(otel,
                            "io.queen.connector",
                            io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessagingSpanNameExtractor
                                    .create(attributes, operation));
            builder.addAttributesExtractor(io.opentelemetry.instrumentation.api.incubator.semconv.messaging
                    .MessagingAttributesExtractor.create(attributes, operation))
                    .addAttributesExtractor(attributes);
            return producer ? builder.buildProducerInstrumenter(QueenSpanAttributes.SETTER)
                    : builder.buildConsumerInstrumenter(QueenSpanAttributes.GETTER);
        }

        /** The application's OpenTelemetry bean when CDI has one; TracingUtils falls back to the global one. */
        private static jakarta.enterprise.inject.Instance<io.opentelemetry.api.OpenTelemetry> openTelemetryBeans() {
            try {
                return jakarta.enterprise.inject.spi.CDI.current().select(io.opentelemetry.api.OpenTelemetry.class);
            } catch (IllegalStateException noContainer) {
                return null;
            }
        }

        @SuppressWarnings("unchecked")
        private static io.opentelemetry.instrumentation.api.instrumenter.Instrumenter<QueenTrace, Void> of(Object o) {
            return (io.opentelemetry.instrumentation.api.instrumenter.Instrumenter<QueenTrace, Void>) o;
        }

        static void traceOutgoing(Object instrumenter, Message<?> message, QueenTrace trace) {
            io.smallrye.reactive.messaging.tracing.TracingUtils.traceOutgoing(of(instrumenter), message, trace);
        }

        static void traceOutput(Object instrumenter, Message<?> input, QueenTrace trace) {
            // TracingUtils takes the parent from a message: the current context travels in a carrier message
            io.opentelemetry.context.Context parent = io.opentelemetry.api.trace.Span.current().getSpanContext()
                    .isValid() ? io.opentelemetry.context.Context.current()
                            : io.smallrye.reactive.messaging.TracingMetadata.fromMessage(input)
                                    .map(io.smallrye.reactive.messaging.TracingMetadata::getCurrentContext)
                                    .orElse(io.opentelemetry.context.Context.current());
            Message<QueenTrace> carrier = Message.of(trace)
                    .addMetadata(io.smallrye.reactive.messaging.TracingMetadata.withCurrent(parent));
            io.smallrye.reactive.messaging.tracing.TracingUtils.traceOutgoing(of(instrumenter), carrier, trace);
        }

        static void traceIncoming(Object instrumenter, Message<?> message, QueenTrace trace) {
            // the poll loop's threads carry no context: the parent is what the traceparent says, or a new trace
            io.smallrye.reactive.messaging.tracing.TracingUtils.traceIncoming(of(instrumenter), message, trace, false);
        }

        static <M extends Message<?>> Multi<M> currentWhileEmitted(Multi<M> messages) {
            return Multi.createFrom().publisher(downstream -> messages.subscribe(new Flow.Subscriber<M>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    downstream.onSubscribe(subscription);
                }

                @Override
                public void onNext(M message) {
                    io.opentelemetry.context.Context context = io.smallrye.reactive.messaging.TracingMetadata
                            .fromMessage(message).map(io.smallrye.reactive.messaging.TracingMetadata::getCurrentContext)
                            .orElse(null);
                    if (context == null) {
                        downstream.onNext(message);
                        return;
                    }
                    try (io.opentelemetry.context.Scope ignored = context.makeCurrent()) {
                        downstream.onNext(message);
                    }
                }

                @Override
                public void onError(Throwable failure) {
                    downstream.onError(failure);
                }

                @Override
                public void onComplete() {
                    downstream.onComplete();
                }
            }));
        }
    }
}
