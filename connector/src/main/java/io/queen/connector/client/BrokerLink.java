package io.queen.connector.client;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Whether one channel's client can reach a broker, the single source of its readiness.
 * <p>
 * States: {@code UNKNOWN} (nothing answered yet), {@code UP} (the last request or probe got an HTTP answer, of any
 * status), {@code DOWN} (the last one could not connect to any broker URL). Each change of state is logged once:
 * WARN when the broker becomes unreachable, INFO when it answers again; the attempts in between are DEBUG.
 * <p>
 * While {@code DOWN}, a reconnect loop probes {@code GET /health} with {@link Backoff} (growing to its cap, with
 * jitter), so readiness turns back at most one capped pause after the broker returns, without waiting for a
 * channel's own requests (a parked long poll may take {@code wait-timeout}). While {@code UP} and idle (no request
 * in flight, nothing answered for {@code probeIntervalMs}), the broker is probed too: an idle outgoing channel
 * otherwise has no request that could notice an outage.
 * <p>
 * Thread-safe: state changes are synchronized on {@code this}; probes run asynchronously on the shared timer.
 */
public final class BrokerLink implements QueenClient.Listener {

    private static final System.Logger LOG = System.getLogger(BrokerLink.class.getName());

    enum State { UNKNOWN, UP, DOWN }

    private final String channel;
    private final String urls;
    private final Supplier<CompletableFuture<Void>> probe;
    private final Supplier<Integer> inflight;
    private final ScheduledExecutorService scheduler;
    private final Backoff backoff;
    private final long probeIntervalMs;

    private State state = State.UNKNOWN;
    private String lastError;
    private long downSinceNanos;
    private volatile long lastAnswerNanos = System.nanoTime();
    private int attempts;
    private boolean reconnecting;
    private boolean closed;
    private CompletableFuture<Void> up = new CompletableFuture<>();
    private ScheduledFuture<?> idleProbe;

    /**
     * @param probe sends {@code GET /health}; completes normally when a broker answered 200
     * @param inflight how many requests of the client are in flight (an idle probe is skipped while any is)
     * @param probeIntervalMs idle-probe period; 0 = no idle probes
     */
    public BrokerLink(String channel, String urls, Supplier<CompletableFuture<Void>> probe, Supplier<Integer> inflight,
            ScheduledExecutorService scheduler, Backoff backoff, long probeIntervalMs) {
        this.channel = channel;
        this.urls = urls;
        this.probe = probe;
        this.inflight = inflight;
        this.scheduler = scheduler;
        this.backoff = backoff;
        this.probeIntervalMs = probeIntervalMs;
    }

    /** Sends the first probe and starts the idle probes. */
    public void start() {
        probe.get().whenComplete((x, t) -> {
            if (t == null) {
                answered();
            }
            // a failed probe already reported itself through the client's listener
        });
        if (probeIntervalMs > 0) {
            idleProbe = scheduler.scheduleWithFixedDelay(this::probeIfIdle, probeIntervalMs, probeIntervalMs,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** True when the last request or probe got an answer from a broker. */
    public synchronized boolean isUp() {
        return state == State.UP;
    }

    /** True when the last request or probe could not reach any broker. */
    public synchronized boolean isDown() {
        return state == State.DOWN;
    }

    /** The connection failure that made the link go down, or null. */
    public synchronized String lastError() {
        return state == State.DOWN ? lastError : null;
    }

    /** Completes when the link is up (at once if it is). */
    public synchronized CompletableFuture<Void> whenUp() {
        return up;
    }

    /** The reconnect back-off of this link. */
    public Backoff backoff() {
        return backoff;
    }

    @Override
    public void answered() {
        lastAnswerNanos = System.nanoTime();
        CompletableFuture<Void> wake;
        synchronized (this) {
            if (state == State.UP) {
                return;
            }
            if (state == State.DOWN) {
                LOG.log(System.Logger.Level.INFO,
                        "smallrye-queen channel {0}: broker reachable again after {1} ms and {2} reconnect attempts",
                        channel, String.valueOf(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downSinceNanos)),
                        String.valueOf(attempts));
            }
            state = State.UP;
            lastError = null;
            attempts = 0;
            wake = up;
        }
        wake.complete(null);
    }

    @Override
    public void unreachable(Throwable error) {
        synchronized (this) {
            lastError = String.valueOf(error);
            if (state == State.DOWN || closed) {
                return;
            }
            LOG.log(System.Logger.Level.WARNING,
                    "smallrye-queen channel {0}: broker unreachable at {1} ({2}); reconnecting with back-off from {3} to {4} ms",
                    channel, urls, lastError, String.valueOf(backoff.initialMs()), String.valueOf(backoff.maxMs()));
            state = State.DOWN;
            downSinceNanos = System.nanoTime();
            attempts = 0;
            if (up.isDone()) {
                up = new CompletableFuture<>();
            }
            if (reconnecting) {
                return;
            }
            reconnecting = true;
        }
        scheduleReconnect();
    }

    /** True when {@code failure} means no broker could be reached (as opposed to a broker that answered). */
    public static boolean isConnectionFailure(Throwable failure) {
        Throwable t = QueenClient.unwrap(failure);
        if (t instanceof QueenHttpException e && e.status() < 0) {
            t = e.getCause();
        }
        // A connect timeout is a timeout too, but it means no connection: unreachable. A request timeout on an
        // open connection means a slow broker, not an absent one.
        return t instanceof java.net.http.HttpConnectTimeoutException
                || t instanceof IOException && !(t instanceof HttpTimeoutException);
    }

    private void scheduleReconnect() {
        long delay;
        int attempt;
        synchronized (this) {
            if (closed || state != State.DOWN) {
                reconnecting = false;
                return;
            }
            attempt = attempts++;
            delay = backoff.delay(attempt);
        }
        LOG.log(System.Logger.Level.DEBUG, "smallrye-queen channel {0}: reconnect attempt {1} in {2} ms", channel,
                String.valueOf(attempt + 1), String.valueOf(delay));
        try {
            scheduler.schedule(() -> probe.get().whenComplete((x, t) -> {
                if (t == null) {
                    answered();
                }
                scheduleReconnect();
            }), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the connector is shutting down
            synchronized (this) {
                reconnecting = false;
            }
        }
    }

    private void probeIfIdle() {
        synchronized (this) {
            if (closed || state != State.UP) {
                return;
            }
        }
        if (inflight.get() > 0 || System.nanoTime() - lastAnswerNanos < TimeUnit.MILLISECONDS.toNanos(probeIntervalMs)) {
            return;
        }
        probe.get().whenComplete((x, t) -> {
            if (t == null) {
                answered();
            }
        });
    }

    /** Stops probing. */
    public void close() {
        synchronized (this) {
            closed = true;
        }
        if (idleProbe != null) {
            idleProbe.cancel(false);
        }
    }
}
