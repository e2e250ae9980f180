package io.queen.connector.app;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.TracingMetadata;
import io.vertx.core.json.JsonObject;

/**
 * A {@code @Blocking} consumer of channel {@code in} (a worker thread): records the span its message's
 * {@code TracingMetadata} holds. Thread-safe (a concurrent list).
 */
@ApplicationScoped
public class TracedBlockingConsumer {

    /** The span of each message's TracingMetadata (invalid when it has none), in arrival order. */
    public static final List<SpanContext> IN_METADATA = new CopyOnWriteArrayList<>();

    @Incoming("in")
    @Blocking
    public CompletionStage<Void> consume(Message<JsonObject> message) {
        IN_METADATA.add(TracingMetadata.fromMessage(message)
                .map(t -> Span.fromContext(t.getCurrentContext()).getSpanContext()).orElse(SpanContext.getInvalid()));
        return message.ack();
    }
}
