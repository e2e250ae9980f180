package io.queen.connector.incoming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.QueenIncomingMetadata;
import io.queen.connector.client.BrokerLink;
import io.queen.connector.client.JsonPayloads;
import io.queen.connector.client.QueenClient;
import io.queen.connector.client.Wire;
import io.queen.connector.client.Wire.AckItem;
import io.queen.connector.client.Wire.PopRequest;
import io.queen.connector.client.Wire.PopResponse;
import io.queen.connector.client.Wire.PoppedMessage;
import io.queen.connector.commit.QueenCommitHandler;
import io.queen.connector.fault.QueenFailureHandler;
import io.queen.connector.health.ChannelMetrics;
import io.queen.connector.tracing.MessageTracing;
import io.queen.connector.tracing.QueenTrace;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * One incoming channel: a poll loop that pops from the broker only when the application asks for more messages,
 * and the bookkeeping that turns application acks and nacks into broker acks.
 * <p>
 * Invariants:
 * <ul>
 * <li>Back-pressure: a pop is sent only when downstream demand reaches a fetched batch that is fully emitted, so
 * at most one batch beyond the requested messages is held (no other buffer exists).</li>
 * <li>Order: messages are emitted in the order of the pop answer (per partition, by offset) and acks leave in
 * that order (see {@link PartitionSpan}). One stream is consumed sequentially by SmallRye; parallelism over
 * partitions comes from the channel's {@code concurrency} setting, each copy being its own consumer, and the
 * broker's per-partition lease keeps a partition with one consumer at a time.</li>
 * <li>Stopping: no new pop after {@link #stop}; in-flight messages get {@code shutdown-timeout} to settle; the
 * acks are flushed; every unfinished lease is released with a {@code retry} ack so the broker redelivers the
 * rest at once. Nothing unacked is ever committed, so nothing is lost.</li>
 * <li>Outages: while the channel's {@link BrokerLink} is down no pop is sent; the loop waits for the link's
 * reconnect probes (back-off to a cap) and resumes as soon as one is answered. Pops the broker answers with an
 * error are retried with the same back-off, logged at WARN once per series.</li>
 * </ul>
 * Thread-safety: the stream is driven by one subscriber; acks, nacks, timers and {@link #stop} may run on any
 * thread and only touch atomics, concurrent sets and the synchronized spans.
 */
public final class QueenSource implements QueenFailureHandler.Context {

    private static final System.Logger LOG = System.getLogger(QueenSource.class.getName());
    /** End-of-stream marker, compared by identity (a distinct instance: {@code List.of()} is a shared singleton). */
    private static final List<QueenMessage<?>> END = java.util.Collections.unmodifiableList(new ArrayList<>());

    private final String channel;
    private final QueenConnectorIncomingConfiguration config;
    private final QueenClient client;
    private final JsonPayloads payloads;
    private final Class<?> payloadClass;
    private final QueenCommitHandler commit;
    private final QueenFailureHandler failure;
    private final ScheduledExecutorService scheduler;
    private final Function<QueenMessage<?>, Executor> emitter;
    private final ChannelMetrics metrics;
    private final PopRequest request;
    private final String consumerGroup;
    private final StateQuery state;
    private final Set<PopLease> openLeases = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Future<?>> inflightPop = new AtomicReference<>();
    private final AtomicReference<Throwable> fatal = new AtomicReference<>();
    private volatile boolean stopped;
    /**
     * Makes "not stopped, so mark it delivered" one step against {@link #stop}'s "stopped, so wait for what was
     * delivered": without it a message could pass the check, the stop could find nothing delivered and release
     * the lease, and the message would then be processed and redelivered (processed twice).
     */
    private final Object deliveryGate = new Object();
    private volatile String lastError;
    /** Consecutive failed pops; only the poll loop touches it (one pop at a time). */
    private int popFailures;
    /** Completed by {@link #stop}: ends every pause of the poll loop at once. */
    private final CompletableFuture<Void> stopSignal = new CompletableFuture<>();
    private final BrokerLink link;
    private volatile boolean streamTerminated;
    /** Consumer spans of this channel's messages. */
    private final MessageTracing tracing;
    /** Producer spans of what transactions write for this channel's messages through a queue name. */
    private final MessageTracing outputTracing;
    private final ConsumerLag lag;

    public QueenSource(QueenConnectorIncomingConfiguration config, QueenClient client,
            QueenCommitHandler.Factory commitFactory, QueenFailureHandler.Factory failureFactory,
            ScheduledExecutorService scheduler,
            Function<QueenMessage<?>, Executor> emitter) {
        this.emitter = emitter;
        this.channel = config.getChannel();
        this.config = config;
        this.client = client;
        this.payloads = new JsonPayloads(client.mapper());
        this.payloadClass = config.getPayloadClass().map(QueenSource::load).orElse(null);
        this.scheduler = scheduler;
        this.metrics = new ChannelMetrics(channel, true);
        this.consumerGroup = config.getConsumerGroup().filter(s -> !s.isBlank()).orElse(null);
        // With `concurrency`, SmallRye names the copies `<channel>$<n>`: they share the channel's queue.
        this.request = new PopRequest(config.getQueue().orElse(channel.replaceFirst("\\$\\d+$", "")), config.getPartition().orElse(null),
                consumerGroup, Math.max(1, config.getBatchSize()), config.getWaitTimeout() > 0,
                config.getWaitTimeout(), Math.max(1, config.getPartitions()),
                config.getSubscriptionMode().orElse(null), config.getSubscriptionFrom().orElse(null));
        this.commit = commitFactory.create(config, acks -> {
            metrics.acks.addAndGet(acks.size());
            return client.ackBatch(consumerGroup, acks);
        }, scheduler);
        this.failure = failureFactory.create(config, this);
        this.state = new StateQuery(client, config.getStateQuery().orElse(channel.replaceFirst("\\$\\d+$", "")),
                request.queue(), config.getStateConfigHash(), config.getStateReset());
        this.link = client.link();
        this.tracing = MessageTracing.consumer(config.getTracingEnabled());
        this.outputTracing = MessageTracing.producer(config.getTracingEnabled());
        this.lag = new ConsumerLag(client, ackConsumerGroup(), request.queue(), request.partition(), metrics.lag);
        lag.start(scheduler, config.getLagInterval());
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("payload-class " + name + " not found", e);
        }
    }

    @Override
    public String channel() {
        return channel;
    }

    public QueenClient client() {
        return client;
    }

    public ChannelMetrics metrics() {
        return metrics;
    }

    /** Producer spans for outputs a transaction writes to a queue by name (toQueue, push). */
    public MessageTracing outputTracing() {
        return outputTracing;
    }

    /** The stream query holding this channel's keyed state. */
    public StateQuery stateQuery() {
        return state;
    }

    /** The consumer group sent with acks ({@code __QUEUE_MODE__} in queue mode). */
    public String ackConsumerGroup() {
        return consumerGroup == null ? Wire.QUEUE_MODE : consumerGroup;
    }

    /** The channel's stream; subscribe once. */
    public Multi<? extends Message<?>> stream() {
        return Multi.createBy().repeating().uni(this::pollOnce).until(batch -> batch == END)
                .onItem().transformToMultiAndConcatenate(batch -> Multi.createFrom().iterable(batch))
                .select().where(this::deliver)
                .onItem().invoke(this::traceReceived)
                // Hand-over to the message's own context (emitter: see QueenConnector), one message at a time:
                // keeps the fetch-ahead bound, and downstream runs on that context, where the consumer span is made
                // current for the application's method
                .onItem().transformToUniAndConcatenate(m -> Uni.createFrom().item(m).emitOn(emitter.apply(m)))
                .plug(tracing::currentWhileEmitted)
                .onTermination().invoke(() -> streamTerminated = true);
    }

    /** The consumer span of a message handed to the application (a child of its producer's span). */
    private void traceReceived(QueenMessage<?> m) {
        QueenIncomingMetadata meta = m.metadata();
        tracing.traceIncoming(m, QueenTrace.incoming(meta.queue(), meta.partition(), meta.consumerGroup(),
                meta.messageId(), meta.traceparent()));
    }

    private Uni<List<QueenMessage<?>>> pollOnce() {
        return Uni.createFrom().deferred(() -> {
            Throwable f = fatal.get();
            if (f != null) {
                return Uni.createFrom().failure(f);
            }
            if (stopped) {
                return Uni.createFrom().item(END);
            }
            if (link.isDown()) {
                // The link's reconnect probes (with back-off) find out when the broker is back: wait for that
                // instead of sending pops that can only fail.
                return Uni.createFrom().completionStage(CompletableFuture.anyOf(link.whenUp(), stopSignal))
                        .onItem().transform(x -> List.<QueenMessage<?>> of());
            }
            // Finished leases are released by their acks: send them before popping again.
            CompletableFuture<List<QueenMessage<?>>> popped = commit.flush().toCompletableFuture()
                    .thenCompose(x -> {
                        if (stopped) {
                            return CompletableFuture.completedFuture(java.util.Optional.<PopResponse> empty());
                        }
                        metrics.pops.incrementAndGet();
                        CompletableFuture<java.util.Optional<PopResponse>> http = client.pop(request);
                        inflightPop.set(http);
                        return http;
                    })
                    .thenApply(answer -> {
                        popSucceeded();
                        if (answer.isEmpty()) {
                            metrics.emptyPops.incrementAndGet();
                            return List.<QueenMessage<?>> of();
                        }
                        return toMessages(answer.get());
                    });
            Uni<List<QueenMessage<?>>> uni = Uni.createFrom().completionStage(popped)
                    .onFailure().recoverWithUni(t -> {
                        if (stopped) {
                            return Uni.createFrom().item(END);
                        }
                        return Uni.createFrom().completionStage(afterFailedPop(t))
                                .onItem().transform(x -> List.<QueenMessage<?>> of());
                    });
            if (!request.longPoll()) {
                // Short polling: pause between empty answers instead of spinning.
                uni = uni.onItem().transformToUni(list -> list.isEmpty() && !stopped
                        ? Uni.createFrom().item(list).onItem().delayIt().by(Duration.ofMillis(config.getPollInterval()))
                        : Uni.createFrom().item(list));
            }
            return uni.onItem().transform(list -> stopped && list.isEmpty() ? END : list);
        });
    }

    private void popSucceeded() {
        lastError = null;
        if (popFailures > 0) {
            LOG.log(System.Logger.Level.INFO, "smallrye-queen channel {0}: pops succeed again after {1} failures",
                    channel, String.valueOf(popFailures));
            popFailures = 0;
        }
    }

    /**
     * After a failed pop: an unreachable broker is the link's business (it logs the outage once and reconnects
     * with back-off; the loop waits for it). A broker that answered with an error is retried with the same
     * back-off; the first failure of a series is logged at WARN, the following ones at DEBUG.
     */
    private CompletableFuture<?> afterFailedPop(Throwable t) {
        lastError = t.toString();
        if (BrokerLink.isConnectionFailure(t)) {
            link.unreachable(t);   // idempotent; the client may not have told it yet
            return CompletableFuture.anyOf(link.whenUp(), stopSignal);
        }
        long pause = link.backoff().delay(popFailures);
        System.Logger.Level level = popFailures == 0 ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        popFailures++;
        LOG.log(level, "smallrye-queen channel {0}: pop failed ({1}), retrying in {2} ms", channel, t.toString(),
                String.valueOf(pause));
        CompletableFuture<Void> delay = CompletableFuture.runAsync(() -> { },
                CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS));
        return CompletableFuture.anyOf(delay, stopSignal);
    }

    private List<QueenMessage<?>> toMessages(PopResponse answer) {
        PopLease lease = new PopLease(answer.leaseId());
        Map<String, PartitionSpan> spans = new LinkedHashMap<>();
        List<QueenMessage<?>> out = new ArrayList<>(answer.messages().size());
        for (PoppedMessage m : answer.messages()) {
            String group = m.consumerGroup() != null ? m.consumerGroup() : ackConsumerGroup();
            PartitionSpan span = spans.computeIfAbsent(m.partitionId(), id -> {
                PartitionSpan s = new PartitionSpan(lease, id, group);
                lease.spans.add(s);
                return s;
            });
            Object payload = null;
            Throwable conversionFailure = null;
            try {
                payload = payloads.fromJson(m.data(), payloadClass);
            } catch (Exception e) {
                conversionFailure = e;
            }
            QueenIncomingMetadata meta = new QueenIncomingMetadata(m.queue() != null ? m.queue() : answer.queue(),
                    m.partition(), m.partitionId(), m.transactionId(), m.id(),
                    m.offset() >= 0 ? OptionalLong.of(m.offset()) : OptionalLong.empty(), m.createdAt(),
                    m.traceId(), group, m.leaseId() != null ? m.leaseId() : answer.leaseId(), m.traceparent());
            QueenMessage<Object> msg = new QueenMessage<>(payload, meta, span, span.messages.size(), conversionFailure,
                    this);
            span.messages.add(msg);
            out.add(msg);
        }
        spans.values().forEach(PartitionSpan::seal);
        metrics.received.addAndGet(out.size());
        metrics.buffered(out.size());
        openLeases.add(lease);
        if (config.getLeaseRenewal() && lease.leaseId != null && !lease.leaseId.isEmpty()) {
            long every = Math.max(100, config.getLeaseRenewalInterval());
            lease.renewal = scheduler.scheduleAtFixedRate(() -> renew(lease), every, every, TimeUnit.MILLISECONDS);
        }
        return out;
    }

    private boolean deliver(QueenMessage<?> m) {
        // After a stop or a `fail` strategy stop nothing new is handed out; undelivered messages return to the
        // broker (the stop releases their lease).
        synchronized (deliveryGate) {
            if (stopped || fatal.get() != null || !m.span.deliver(m.index)) {
                return false;
            }
        }
        if (m.conversionFailure != null) {
            // The payload cannot be handed to the application: treat it as a processing failure.
            nack(m, m.conversionFailure);
            return false;
        }
        return true;
    }

    private void renew(PopLease lease) {
        if (lease.finished()) {
            lease.stopRenewal();
            openLeases.remove(lease);
            return;
        }
        client.extendLease(lease.leaseId, config.getLeaseExtension()).whenComplete((ok, t) -> {
            if (t != null) {
                LOG.log(System.Logger.Level.WARNING, "channel {0}: lease {1} extension failed: {2}", channel,
                        lease.leaseId, t.toString());
            } else if (ok) {
                metrics.leaseExtensions.incrementAndGet();
            } else if (!lease.finished()) {
                // Another consumer may get these messages now; stop handing out the rest of the span.
                LOG.log(System.Logger.Level.WARNING, "channel {0}: lease {1} lost, rest of its messages skipped",
                        channel, lease.leaseId);
                for (PartitionSpan s : lease.spans) {
                    apply(s, s.abandon(false));
                }
            }
        });
    }

    /** Application ack: a {@code completed} settlement. */
    CompletionStage<Void> ack(QueenMessage<?> m) {
        return settle(m, "completed", null);
    }

    /** Application nack: the failure strategy decides. */
    CompletionStage<Void> nack(QueenMessage<?> m, Throwable reason) {
        if (!m.span.deliverable(m.index) && m.conversionFailure == null) {
            return CompletableFuture.completedFuture(null);
        }
        metrics.nacks.incrementAndGet();
        return failure.handle(m, reason);
    }

    @Override
    public CompletionStage<Void> settle(QueenMessage<?> message, String status, String error) {
        return apply(message.span, message.span.settle(message.index, status, error, false));
    }

    @Override
    public void fail(Throwable reason) {
        fatal.compareAndSet(null, reason);
        lastError = reason.toString();
    }

    /**
     * Prepares a transaction that acks {@code m}: every earlier message of its span must be settled (the
     * transaction's ack completes them on the broker) and their acks are flushed first, so that the broker sees
     * them before the transaction releases the lease.
     */
    public CompletionStage<Void> beforeTransaction(QueenMessage<?> m) {
        if (!m.span.deliverable(m.index)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "message " + m.metadata().transactionId() + " is already settled or its lease was given up"));
        }
        if (!m.span.prefixSettled(m.index)) {
            return CompletableFuture.failedFuture(new IllegalStateException("message " + m.metadata().transactionId()
                    + " cannot be committed before the earlier messages of its partition are settled"));
        }
        return commit.flush();
    }

    /** Records that a committed transaction acked {@code m} on the broker (counted as an ack of this channel). */
    public CompletionStage<Void> committedByTransaction(QueenMessage<?> m) {
        PartitionSpan.Release r = m.span.settle(m.index, "completed", null, true);
        if (r.changed()) {
            metrics.acks.incrementAndGet();
        }
        return apply(m.span, r);
    }

    private CompletionStage<Void> apply(PartitionSpan span, PartitionSpan.Release r) {
        if (!r.changed()) {
            return CompletableFuture.completedFuture(null);
        }
        if (r.terminal() > 0) {
            metrics.buffered(-r.terminal());
        }
        CompletionStage<Void> last = CompletableFuture.completedFuture(null);
        for (int i = 0; i < r.acks().size(); i++) {
            AckItem a = r.acks().get(i);
            boolean urgent = r.finished() || !"completed".equals(a.status());
            last = commit.enqueue(a, urgent);
        }
        if (r.finished() && span.lease.finished()) {
            span.lease.stopRenewal();
            openLeases.remove(span.lease);
        }
        return last;
    }

    /** Stops polling, waits for in-flight messages, flushes acks and releases unfinished leases. */
    public void stop() {
        synchronized (deliveryGate) {
            if (stopped) {
                return;
            }
            stopped = true;   // from here on every delivery is either marked already or refused
        }
        stopSignal.complete(null);
        Future<?> pop = inflightPop.get();
        if (pop != null) {
            pop.cancel(true);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.getShutdownTimeout());
        while (System.nanoTime() < deadline && !allDeliveredSettled()) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (PopLease lease : openLeases) {
            lease.stopRenewal();
            for (PartitionSpan s : lease.spans) {
                apply(s, s.abandon(true));
            }
        }
        openLeases.clear();
        try {
            commit.flush().toCompletableFuture().get(Math.max(1_000, config.getRequestTimeout()), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "channel {0}: final ack flush failed: {1}", channel, e.toString());
        }
        commit.close();
        lag.stop();
        metrics.close();
    }

    private boolean allDeliveredSettled() {
        for (PopLease lease : openLeases) {
            for (PartitionSpan s : lease.spans) {
                if (s.hasDeliveredOpen()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Readiness: the broker answered the last request or probe (see {@link BrokerLink}). */
    public boolean ready() {
        return link.isUp() && fatal.get() == null;
    }

    /**
     * Liveness: the poll loop has not died (no fatal failure, stream not terminated unless stopped). An idle loop
     * is alive: without demand from a slow application it rightly does not poll.
     */
    public boolean alive() {
        return fatal.get() == null && !(streamTerminated && !stopped);
    }

    public String lastError() {
        Throwable f = fatal.get();
        if (f != null) {
            return f.toString();
        }
        String down = link.lastError();
        return down != null ? "broker unreachable: " + down : lastError;
    }
}
