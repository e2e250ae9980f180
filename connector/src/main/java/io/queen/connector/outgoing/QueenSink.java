package io.queen.connector.outgoing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.QueenConnectorOutgoingConfiguration;
import io.queen.connector.QueenOutgoingMetadata;
import io.queen.connector.client.BrokerLink;
import io.queen.connector.client.JsonPayloads;
import io.queen.connector.client.QueenClient;
import io.queen.connector.client.Wire.PushItem;
import io.queen.connector.client.Wire.PushResult;
import io.queen.connector.health.ChannelMetrics;
import io.queen.connector.health.TraceIds;
import io.queen.connector.tracing.MessageTracing;
import io.queen.connector.tracing.QueenTrace;

/**
 * One outgoing channel: groups messages into {@code POST /api/v1/push} requests and acks each message only after
 * the broker confirmed it ({@code queued}, {@code duplicate}, or {@code buffered} in maintenance mode); an item
 * {@code failed} or a request that fails after the client's retries nacks it with the broker's error.
 * <p>
 * Invariants: at most {@code push-batch-size × max-inflight-requests} messages are requested from upstream and
 * not yet settled (the only buffer, bounded); at most {@code max-inflight-requests} push requests are in flight.
 * With one request in flight (the default) messages reach the broker in the order they were sent; more requests
 * in flight trade that order across batches for throughput. A transaction id is minted for every message before
 * the first send, so the client's retries after an ambiguous failure dedup on the broker.
 * <p>
 * Thread-safety: Reactive Streams serialises {@code onNext}; the batch, queue and counters are guarded by
 * {@code this} because linger timers and push completions run on other threads.
 */
public final class QueenSink implements Flow.Subscriber<Message<?>> {

    private static final System.Logger LOG = System.getLogger(QueenSink.class.getName());

    private record Prepared(Message<?> message, PushItem item) {
    }

    private final String channel;
    private final QueenClient client;
    private final JsonPayloads payloads;
    private final ScheduledExecutorService scheduler;
    private final ChannelMetrics metrics;
    private final String queue;
    private final String partition;
    private final int batchSize;
    private final int maxInflight;
    private final long lingerMs;
    private final long shutdownTimeout;
    private final MessageTracing tracing;

    private Flow.Subscription upstream;
    private List<Prepared> current = new ArrayList<>();
    private final ArrayDeque<List<Prepared>> ready = new ArrayDeque<>();
    private ScheduledFuture<?> linger;
    private int inflight;
    private final BrokerLink link;
    private volatile String lastError;
    private volatile boolean failed;

    public QueenSink(QueenConnectorOutgoingConfiguration config, QueenClient client, ScheduledExecutorService scheduler) {
        this.channel = config.getChannel();
        this.client = client;
        this.payloads = new JsonPayloads(client.mapper());
        this.scheduler = scheduler;
        this.metrics = new ChannelMetrics(channel, false);
        this.queue = config.getQueue().orElse(channel);
        this.partition = config.getPartition().orElse(null);
        this.batchSize = Math.max(1, config.getPushBatchSize());
        this.maxInflight = Math.max(1, config.getMaxInflightRequests());
        this.lingerMs = Math.max(0, config.getPushLinger());
        this.shutdownTimeout = config.getShutdownTimeout();
        this.link = client.link();
        this.tracing = MessageTracing.producer(config.getTracingEnabled());
    }

    public String channel() {
        return channel;
    }

    public String queue() {
        return queue;
    }

    public String partition() {
        return partition;
    }

    public ChannelMetrics metrics() {
        return metrics;
    }

    /** The channel's producer spans (also made for what {@code QueenTransactions.toChannel} writes to it). */
    public MessageTracing tracing() {
        return tracing;
    }

    /** How long shutdown waits for the broker to confirm accepted messages ({@code shutdown-timeout}). */
    public long shutdownTimeout() {
        return shutdownTimeout;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.upstream = subscription;
        subscription.request((long) batchSize * maxInflight);
    }

    @Override
    public void onNext(Message<?> message) {
        Prepared p;
        try {
            p = new Prepared(message, toItem(message));
        } catch (RuntimeException e) {
            message.nack(e);
            upstream.request(1);
            return;
        }
        synchronized (this) {
            current.add(p);
            if (current.size() >= batchSize || lingerMs == 0) {
                seal();
            } else if (linger == null) {
                linger = scheduler.schedule(this::lingerExpired, lingerMs, TimeUnit.MILLISECONDS);
            }
        }
        drain();
    }

    /**
     * Builds the wire item: metadata wins over channel defaults; the transaction id is fixed here, once. The
     * producer span is made here (parent: the message's TracingMetadata, else the context current in the sending
     * thread); the trace id sent is the span's, unless the metadata names one.
     */
    PushItem toItem(Message<?> message) {
        QueenOutgoingMetadata meta = message.getMetadata(QueenOutgoingMetadata.class).orElse(null);
        String q = meta != null && meta.queue() != null ? meta.queue() : queue;
        String p = meta != null && meta.partition() != null ? meta.partition() : partition;
        String txn = meta != null && meta.transactionId() != null ? meta.transactionId() : UUID.randomUUID().toString();
        String traceparent = tracing.traceOutgoing(message, QueenTrace.outgoing(q, p));
        String trace = meta != null && meta.traceId() != null ? meta.traceId() : TraceIds.current(traceparent);
        return new PushItem(q, p, payloads.toJson(message.getPayload()), txn, trace, traceparent);
    }

    private void lingerExpired() {
        synchronized (this) {
            linger = null;
            if (!current.isEmpty()) {
                seal();
            }
        }
        drain();
    }

    /** Moves the open batch to the ready queue. Caller holds the lock. */
    private void seal() {
        if (linger != null) {
            linger.cancel(false);
            linger = null;
        }
        ready.add(current);
        current = new ArrayList<>();
    }

    private void drain() {
        while (true) {
            List<Prepared> batch;
            synchronized (this) {
                if (inflight >= maxInflight || ready.isEmpty()) {
                    return;
                }
                batch = ready.poll();
                inflight++;
            }
            send(batch);
        }
    }

    private void send(List<Prepared> batch) {
        metrics.pushes.incrementAndGet();
        CompletableFuture<List<PushResult>> f;
        try {
            f = client.push(batch.stream().map(Prepared::item).toList());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((results, failure) -> {
            if (failure != null) {
                lastError = failure.toString();
                // An outage is logged once by the link; each refused batch of a reachable broker is worth a WARN.
                LOG.log(BrokerLink.isConnectionFailure(failure) ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
                        "smallrye-queen channel {0}: push of {1} messages failed: {2}", channel, batch.size(),
                        failure.toString());
                metrics.pushFailures.addAndGet(batch.size());
                for (Prepared p : batch) {
                    p.message().nack(failure);
                }
            } else {
                lastError = null;
                for (int i = 0; i < batch.size(); i++) {
                    PushResult r = results.get(i);
                    Message<?> m = batch.get(i).message();
                    if (r.accepted()) {
                        metrics.pushed.incrementAndGet();
                        m.ack();
                    } else {
                        metrics.pushFailures.incrementAndGet();
                        m.nack(new IllegalStateException("push " + r.status() + ": " + r.error()));
                    }
                }
            }
            synchronized (this) {
                inflight--;
            }
            upstream.request(batch.size());
            drain();
        });
    }

    @Override
    public void onError(Throwable throwable) {
        failed = true;
        lastError = throwable.toString();
        onComplete();
    }

    @Override
    public void onComplete() {
        synchronized (this) {
            if (!current.isEmpty()) {
                seal();
            }
        }
        drain();
    }

    /** Waits (bounded) until every accepted message was answered by the broker. */
    public void flush(long timeoutMs) {
        onComplete();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                if (inflight == 0 && ready.isEmpty() && current.isEmpty()) {
                    return;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Readiness: the broker answered the last request or probe (see {@link BrokerLink}). */
    public boolean ready() {
        return link.isUp();
    }

    public boolean alive() {
        return !failed;
    }

    public String lastError() {
        String down = link.lastError();
        return down != null ? "broker unreachable: " + down : lastError;
    }

    /** Counts {@code messages} that a committed transaction wrote to this channel's queue as one push request. */
    public void countTransactionPush(int messages) {
        metrics.pushes.incrementAndGet();
        metrics.pushed.addAndGet(messages);
        metrics.transactionPushed.addAndGet(messages);
    }
}
