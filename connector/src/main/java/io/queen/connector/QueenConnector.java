package io.queen.connector;

import static io.smallrye.reactive.messaging.annotations.ConnectorAttribute.Direction.INCOMING;
import static io.smallrye.reactive.messaging.annotations.ConnectorAttribute.Direction.INCOMING_AND_OUTGOING;
import static io.smallrye.reactive.messaging.annotations.ConnectorAttribute.Direction.OUTGOING;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.spi.Connector;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.queen.connector.client.Backoff;
import io.queen.connector.client.BrokerLink;
import io.queen.connector.client.QueenClient;
import io.queen.connector.commit.QueenCommitHandler;
import io.queen.connector.fault.QueenFailureHandler;
import io.queen.connector.incoming.QueenMessage;
import io.queen.connector.incoming.QueenSource;
import io.queen.connector.outgoing.QueenSink;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.annotations.ConnectorAttribute;
import io.smallrye.reactive.messaging.connector.InboundConnector;
import io.smallrye.reactive.messaging.connector.OutboundConnector;
import io.smallrye.reactive.messaging.health.HealthReport;
import io.smallrye.reactive.messaging.health.HealthReporter;
import io.smallrye.reactive.messaging.providers.connectors.ExecutionHolder;
import io.smallrye.reactive.messaging.providers.locals.LocalContextMetadata;
import io.vertx.core.impl.VertxInternal;

/**
 * The {@code smallrye-queen} connector: binds {@code @Incoming} / {@code @Outgoing} channels to Queen queues over
 * the broker's HTTP API. Configuration is declared with {@link ConnectorAttribute}s; the annotation processor
 * generates {@code QueenConnector*Configuration} classes and the attribute documentation from them.
 * <p>
 * Owns one {@link QueenClient} per channel, one shared timer thread (ack flushes, lease renewals, push linger),
 * and the channel registry used for health and by {@link QueenTransactions}. On application shutdown it stops
 * every source (no new pops, in-flight messages settle, acks flushed, leases released) and flushes every sink.
 * <p>
 * Thread-safe: the registries are concurrent collections; everything else is set at construction.
 */
@ApplicationScoped
@Connector(QueenConnector.CONNECTOR_NAME)
// Both directions
@ConnectorAttribute(name = "url", type = "string", direction = INCOMING_AND_OUTGOING, defaultValue = "http://localhost:6632", description = "Broker base URL, or a comma-separated list: requests go to one broker and fail over to the next when it cannot be reached")
@ConnectorAttribute(name = "queue", type = "string", direction = INCOMING_AND_OUTGOING, description = "The queue; defaults to the channel name")
@ConnectorAttribute(name = "partition", type = "string", direction = INCOMING_AND_OUTGOING, description = "Incoming: pop only this partition (absent = any partition, wildcard pop). Outgoing: the partition pushed to (absent = the broker's `Default`), overridable per message with QueenOutgoingMetadata")
@ConnectorAttribute(name = "auth-token", type = "string", direction = INCOMING_AND_OUTGOING, description = "Bearer token sent as `Authorization: Bearer <token>` when the broker has authentication on")
@ConnectorAttribute(name = "request-timeout", type = "long", direction = INCOMING_AND_OUTGOING, defaultValue = "10000", description = "Timeout in ms of a request that is not a long poll")
@ConnectorAttribute(name = "retries", type = "int", direction = INCOMING_AND_OUTGOING, defaultValue = "3", description = "How often a repeatable request (push, ack, lease extension, transaction) is re-sent per broker URL after a transient failure (5xx, connection error)")
@ConnectorAttribute(name = "retry-backoff", type = "long", direction = INCOMING_AND_OUTGOING, defaultValue = "100", description = "First pause in ms before reconnecting to an unreachable broker (a `GET /health` probe) or before popping again after a failed pop; doubles with each failure up to retry-backoff-max, less up to 20 % jitter")
@ConnectorAttribute(name = "retry-backoff-max", type = "long", direction = INCOMING_AND_OUTGOING, defaultValue = "1000", description = "Cap in ms of the reconnect back-off; also the longest a channel takes to notice that an unreachable broker is back (readiness recovers within it)")
@ConnectorAttribute(name = "health-probe-interval", type = "long", direction = INCOMING_AND_OUTGOING, defaultValue = "1000", description = "While the channel is idle (no request in flight, no answer for this many ms), the broker's `/health` is probed this often so readiness notices an outage (e.g. an idle outgoing channel). 0 = never")
@ConnectorAttribute(name = "health-enabled", type = "boolean", direction = INCOMING_AND_OUTGOING, defaultValue = "true", description = "Whether the channel reports readiness and liveness")
@ConnectorAttribute(name = "tracing-enabled", type = "boolean", direction = INCOMING_AND_OUTGOING, defaultValue = "true", description = "Whether the channel makes OpenTelemetry spans (a producer span per pushed message, a consumer span per received one) and propagates their `traceparent`; needs `smallrye-reactive-messaging-otel` on the class path (see Tracing)")
// Incoming
@ConnectorAttribute(name = "consumer-group", type = "string", direction = INCOMING, description = "Consumer group; absent = queue mode (competing consumers on the queue's own cursor)")
@ConnectorAttribute(name = "subscription-mode", type = "string", direction = INCOMING, description = "Where a new consumer group starts: `all` (from the beginning) or `new` (after the current end). Only used on the group's first contact with the queue")
@ConnectorAttribute(name = "subscription-from", type = "string", direction = INCOMING, description = "`now` or an ISO-8601 timestamp: a new consumer group starts at the first message created after it (wins over subscription-mode)")
@ConnectorAttribute(name = "batch-size", type = "int", direction = INCOMING, defaultValue = "10", description = "Maximum number of messages per pop; also the bound on messages fetched ahead of the application's demand")
@ConnectorAttribute(name = "partitions", type = "int", direction = INCOMING, defaultValue = "1", description = "Partitions one wildcard pop may claim (they share one lease); batch-size stays the total")
@ConnectorAttribute(name = "wait-timeout", type = "long", direction = INCOMING, defaultValue = "30000", description = "Long-poll timeout in ms: the broker holds a pop until messages arrive or this elapses. 0 = short polls every poll-interval ms")
@ConnectorAttribute(name = "poll-interval", type = "long", direction = INCOMING, defaultValue = "500", description = "Pause in ms after an empty short poll (only with wait-timeout=0)")
@ConnectorAttribute(name = "lease-renewal", type = "boolean", direction = INCOMING, defaultValue = "true", description = "Extend the lease (`POST /api/v1/lease/:leaseId/extend`) while messages of a pop are still being processed, so slow processing does not lose the lease")
@ConnectorAttribute(name = "lease-renewal-interval", type = "long", direction = INCOMING, defaultValue = "20000", description = "Period in ms of lease extensions; keep it well below the queue's leaseTime")
@ConnectorAttribute(name = "lease-extension", type = "int", direction = INCOMING, defaultValue = "60", description = "Seconds from now that one extension grants")
@ConnectorAttribute(name = "failure-strategy", type = "string", direction = INCOMING, defaultValue = "retry", description = "What a nack does: `fail` (stop the channel), `ignore` (ack and go on), `retry` (failed ack: the broker redelivers and dead-letters after the queue's retryLimit), `dead-letter-queue` (file the message as a dead letter at once), or the @Identifier of a custom QueenFailureHandler.Factory bean")
@ConnectorAttribute(name = "commit-strategy", type = "string", direction = INCOMING, defaultValue = "batched", description = "When acks are sent: `batched` (collected into /api/v1/ack/batch, sent at the end of each leased span, every commit-interval ms and before each pop), `immediate` (each ack sent and confirmed before ack() completes), or the @Identifier of a custom QueenCommitHandler.Factory bean")
@ConnectorAttribute(name = "commit-interval", type = "long", direction = INCOMING, defaultValue = "500", description = "Longest time in ms a `batched` ack waits before it is sent")
@ConnectorAttribute(name = "payload-class", type = "string", direction = INCOMING, description = "Class the message data is mapped to with Jackson; absent = JsonObject, JsonArray, String, Number, Boolean or null following the JSON")
@ConnectorAttribute(name = "lag-interval", type = "long", direction = INCOMING, defaultValue = "10000", description = "How often in ms the channel reads its consumer group's lag on its queue from the broker (`GET /api/v1/consumer-groups/:group`) for the `queen_messaging_consumer_lag` gauge. 0 = never")
@ConnectorAttribute(name = "state-query", type = "string", direction = INCOMING, description = "Name of the stream query under which the channel keeps keyed state (QueenTransactions `state(..)` / `readState(..)`); absent = the channel name")
@ConnectorAttribute(name = "state-config-hash", type = "string", direction = INCOMING, defaultValue = "1", description = "Version of the state's shape: the broker refuses (409) a query registered with another one unless state-reset is true")
@ConnectorAttribute(name = "state-reset", type = "boolean", direction = INCOMING, defaultValue = "false", description = "Wipe the query's state when the channel registers it (once per start)")
@ConnectorAttribute(name = "shutdown-timeout", type = "long", direction = INCOMING_AND_OUTGOING, defaultValue = "10000", description = "At shutdown, how long in ms in-flight messages may take to settle (incoming) or to be confirmed (outgoing)")
// Outgoing
@ConnectorAttribute(name = "push-batch-size", type = "int", direction = OUTGOING, defaultValue = "100", description = "Maximum number of messages per push request")
@ConnectorAttribute(name = "push-linger", type = "long", direction = OUTGOING, defaultValue = "5", description = "How long in ms a partly filled push batch waits for more messages")
@ConnectorAttribute(name = "max-inflight-requests", type = "int", direction = OUTGOING, defaultValue = "1", description = "Push requests in flight at once; 1 keeps the send order, more may reorder messages of different batches")
public class QueenConnector implements InboundConnector, OutboundConnector, HealthReporter {

    public static final String CONNECTOR_NAME = "smallrye-queen";

    private static final System.Logger LOG = System.getLogger(QueenConnector.class.getName());

    @Inject
    @Any
    Instance<QueenFailureHandler.Factory> failureFactories;

    @Inject
    @Any
    Instance<QueenCommitHandler.Factory> commitFactories;

    @Inject
    Instance<ObjectMapper> objectMappers;

    @Inject
    ExecutionHolder executionHolder;

    private final List<QueenSource> sources = new CopyOnWriteArrayList<>();
    private final Map<String, QueenSink> sinks = new ConcurrentHashMap<>();
    private final Map<QueenSource, Boolean> sourceHealth = new ConcurrentHashMap<>();
    private final Map<String, Boolean> sinkHealth = new ConcurrentHashMap<>();
    private final List<QueenClient> clients = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "queen-connector-timer");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean terminated;

    @Override
    public Flow.Publisher<? extends Message<?>> getPublisher(Config config) {
        QueenConnectorIncomingConfiguration ic = new QueenConnectorIncomingConfiguration(config);
        // Strategies are resolved before the client exists: a channel refused here must not leave a client behind
        // whose reconnect probes would outlive the application that failed to start.
        var commitFactory = lookup(commitFactories, ic.getCommitStrategy(), "commit-strategy");
        var failureFactory = lookup(failureFactories, ic.getFailureStrategy(), "failure-strategy");
        QueenClient client = client(ic);
        // Each source emits on its own Vert.x event-loop context, as the Kafka connector does: SmallRye then runs
        // the copies of a channel with `concurrency` in parallel, and @Blocking work returns to that context. Each
        // message gets a duplicate of it (LocalContextMetadata), as a Kafka record does: what the application keeps
        // in the context (Quarkus' OpenTelemetry context, so the consumer span is current in the method) is the
        // message's own, and SmallRye runs the message's processing on it.
        io.vertx.core.impl.ContextInternal context = (io.vertx.core.impl.ContextInternal)
                ((VertxInternal) executionHolder.vertx().getDelegate()).createEventLoopContext();
        java.util.function.Function<QueenMessage<?>, Executor> onContext = m -> {
            io.vertx.core.impl.ContextInternal own = context.duplicate();
            m.injectMetadata(new LocalContextMetadata(own));
            return task -> own.runOnContext(x -> task.run());
        };
        QueenSource source = closingOnFailure(client,
                () -> new QueenSource(ic, client, commitFactory, failureFactory, scheduler, onContext));
        sources.add(source);
        sourceHealth.put(source, ic.getHealthEnabled());
        return source.stream();
    }

    @Override
    public Flow.Subscriber<? extends Message<?>> getSubscriber(Config config) {
        QueenConnectorOutgoingConfiguration oc = new QueenConnectorOutgoingConfiguration(config);
        QueenClient client = client(oc);
        QueenSink sink = closingOnFailure(client, () -> new QueenSink(oc, client, scheduler));
        sinks.put(oc.getChannel(), sink);
        sinkHealth.put(oc.getChannel(), oc.getHealthEnabled());
        return sink;
    }

    private QueenClient client(QueenConnectorCommonConfiguration c) {
        ObjectMapper mapper = objectMappers != null && objectMappers.isResolvable() ? objectMappers.get() : new ObjectMapper();
        QueenClient client = new QueenClient(c.getUrl(), c.getAuthToken(), Duration.ofMillis(c.getRequestTimeout()),
                c.getRetries(), mapper);
        BrokerLink link = new BrokerLink(c.getChannel(), client.urls(), client::health, client::inflight, scheduler,
                new Backoff(c.getRetryBackoff(), c.getRetryBackoffMax()), c.getHealthProbeInterval());
        client.link(link);
        link.start();
        clients.add(client);
        return client;
    }

    /** Makes a channel's source or sink; if that fails, the channel's client is closed (its probes stop). */
    private <T> T closingOnFailure(QueenClient client, java.util.function.Supplier<T> make) {
        try {
            return make.get();
        } catch (RuntimeException e) {
            clients.remove(client);
            client.close();
            throw e;
        }
    }

    private static <T> T lookup(Instance<T> beans, String name, String attribute) {
        Instance<T> selected = beans.select(Identifier.Literal.of(name));
        if (!selected.isResolvable()) {
            throw new IllegalArgumentException("Unknown " + attribute + " '" + name + "'");
        }
        return selected.get();
    }

    /** The outgoing channel named {@code channel}, if it is a {@code smallrye-queen} channel. */
    public QueenSink sink(String channel) {
        return sinks.get(channel);
    }

    /** Incoming channels (for tests and tooling). */
    public List<QueenSource> sources() {
        return List.copyOf(sources);
    }

    /** Stops before the application's beans go away, so in-flight messages can still be processed. */
    public void terminate(
            @Observes(notifyObserver = Reception.IF_EXISTS) @Priority(50) @BeforeDestroyed(ApplicationScoped.class) Object event) {
        shutdown();
    }

    @PreDestroy
    void destroy() {
        shutdown();
    }

    private synchronized void shutdown() {
        if (terminated) {
            return;
        }
        terminated = true;
        // Sources stop in parallel: each may wait for its in-flight messages.
        List<Thread> stoppers = sources.stream().map(s -> Thread.ofVirtual().start(s::stop)).toList();
        for (Thread t : stoppers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (QueenSink sink : sinks.values()) {
            sink.flush(sink.shutdownTimeout());
            sink.metrics().close();
        }
        scheduler.shutdownNow();
        clients.forEach(QueenClient::close);
        LOG.log(System.Logger.Level.DEBUG, "smallrye-queen connector stopped");
    }

    @Override
    public HealthReport getReadiness() {
        HealthReport.HealthReportBuilder b = HealthReport.builder();
        for (QueenSource s : sources) {
            if (sourceHealth.getOrDefault(s, true)) {
                b.add(s.channel(), s.ready(), s.ready() ? null : s.lastError());
            }
        }
        for (QueenSink s : sinks.values()) {
            if (sinkHealth.getOrDefault(s.channel(), true)) {
                b.add(s.channel(), s.ready(), s.ready() ? null : s.lastError());
            }
        }
        return b.build();
    }

    @Override
    public HealthReport getLiveness() {
        HealthReport.HealthReportBuilder b = HealthReport.builder();
        for (QueenSource s : sources) {
            if (sourceHealth.getOrDefault(s, true)) {
                b.add(s.channel(), s.alive(), s.alive() ? null : s.lastError());
            }
        }
        for (QueenSink s : sinks.values()) {
            if (sinkHealth.getOrDefault(s.channel(), true)) {
                b.add(s.channel(), s.alive(), s.alive() ? null : s.lastError());
            }
        }
        return b.build();
    }
}
