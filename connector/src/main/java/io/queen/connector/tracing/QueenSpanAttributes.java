package io.queen.connector.tracing;

import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.instrumentation.api.incubator.semconv.messaging.MessagingAttributesGetter;
import io.opentelemetry.instrumentation.api.instrumenter.AttributesExtractor;

/**
 * What the messaging semantic conventions say about a Queen message ({@code messaging.system=queen}, the queue as
 * {@code messaging.destination.name}, the partition as {@code messaging.destination.partition.id}, the broker's
 * message id), plus {@code messaging.consumer.group.name} on consumer spans; and the carrier of the
 * {@code traceparent}. Loaded only through {@link MessageTracing}'s OpenTelemetry class, so only when
 * OpenTelemetry is present. Stateless; thread-safe.
 */
final class QueenSpanAttributes implements MessagingAttributesGetter<QueenTrace, Void>,
        AttributesExtractor<QueenTrace, Void> {

    static final String SYSTEM = "queen";
    static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");

    /** Writes the producer span's context into the pushed item; other propagators' fields are not carried. */
    static final TextMapSetter<QueenTrace> SETTER = (carrier, key, value) -> {
        if (carrier != null && MessageTracing.TRACEPARENT.equals(key)) {
            carrier.traceparent(value);
        }
    };

    /** Reads the popped message's {@code traceparent}. */
    static final TextMapGetter<QueenTrace> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(QueenTrace carrier) {
            return carrier.traceparent() == null ? List.of() : List.of(MessageTracing.TRACEPARENT);
        }

        @Override
        public String get(QueenTrace carrier, String key) {
            return carrier != null && MessageTracing.TRACEPARENT.equals(key) ? carrier.traceparent() : null;
        }
    };

    @Override
    public String getSystem(QueenTrace trace) {
        return SYSTEM;
    }

    @Override
    public String getDestination(QueenTrace trace) {
        return trace.queue();
    }

    @Override
    public String getDestinationTemplate(QueenTrace trace) {
        return null;
    }

    @Override
    public boolean isTemporaryDestination(QueenTrace trace) {
        return false;
    }

    @Override
    public boolean isAnonymousDestination(QueenTrace trace) {
        return false;
    }

    @Override
    public String getConversationId(QueenTrace trace) {
        return null;
    }

    @Override
    public Long getMessageBodySize(QueenTrace trace) {
        return null;
    }

    @Override
    public Long getMessageEnvelopeSize(QueenTrace trace) {
        return null;
    }

    @Override
    public String getMessageId(QueenTrace trace, Void unused) {
        return trace.messageId();
    }

    @Override
    public String getClientId(QueenTrace trace) {
        return null;
    }

    @Override
    public Long getBatchMessageCount(QueenTrace trace, Void unused) {
        return null;
    }

    @Override
    public String getDestinationPartitionId(QueenTrace trace) {
        return trace.partition();
    }

    @Override
    public void onStart(AttributesBuilder attributes, Context parentContext, QueenTrace trace) {
        if (trace.consumerGroup() != null) {
            attributes.put(CONSUMER_GROUP, trace.consumerGroup());
        }
    }

    @Override
    public void onEnd(AttributesBuilder attributes, Context context, QueenTrace trace, Void unused, Throwable error) {
        // nothing known at the end: the span ends as soon as it started (as the Kafka connector's do)
    }
}
