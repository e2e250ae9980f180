package io.queen.warmup;

import io.agroal.api.AgroalDataSource;
import io.queen.ack.AckFusion;
import io.queen.ack.AckStore;
import io.queen.pop.PopStore;
import io.queen.push.LogWriter;
import io.queen.push.PushItem;
import io.queen.push.PushStore;
import io.queen.schema.SchemaApplier;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Readiness waits until the hot path is warm: a broker that says it is ready answers its first push, pop and ack
 * at about the speed of the next ones. Cold, the first push paid for class loading, the zstd native library, the
 * HTTP pipeline's first request and, on each pooled connection, PostgreSQL's first planning of the log functions:
 * seconds on a loaded machine, longer than a client's buffered flush waits.
 *
 * <p>Once the schema is applied, {@link #CONNECTIONS} pooled connections are opened at the same time (so they are
 * distinct backends) and each runs a push, a pop of it by partition and by queue, a positional ack and an ack by
 * hash through the stores' own calls, in one transaction that is rolled back: nothing of it is ever visible, and a
 * random tenant id keeps its queue apart from every real one while it runs. A failure is logged and retried with
 * back-off, and after {@link #MAX_ATTEMPTS} the broker serves cold; readiness says what it waits for. When the HTTP server listens, a few requests go through this broker's
 * own port, requests that write and count nothing (a look-up of an unknown queue, an empty ack batch, an empty
 * push).
 * Thread-safety: one warm-up thread; {@code warm} and {@code waiting} are volatile.
 */
@Readiness
@ApplicationScoped
public class HotPathWarmup implements HealthCheck {
    /** Pooled connections warmed (at most the pool's size): the connections a first burst of requests takes. */
    static final int CONNECTIONS = 8;
    private static final Logger LOG = Logger.getLogger(HotPathWarmup.class);
    private static final long RETRY_FIRST_MS = 250;
    private static final long RETRY_MAX_MS = 5_000;
    /** Attempts before serving cold (about 4 s of back-off). */
    private static final int MAX_ATTEMPTS = 5;

    private final SchemaApplier schema;
    private final AgroalDataSource ds;
    private final LogWriter writer;
    private final PopStore pops;
    private final AckStore acks;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private volatile boolean warm;
    private volatile String waiting = "the schema";

    HotPathWarmup(SchemaApplier schema, AgroalDataSource ds, LogWriter writer, PopStore pops, AckStore acks) {
        this.schema = schema;
        this.ds = ds;
        this.writer = writer;
        this.pops = pops;
        this.acks = acks;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("queen-warm-up").status(warm);
        if (!warm) {
            b.withData("waiting", waiting);
        }
        return b.build();
    }

    /** True once the push, pop and ack paths ran once (readiness UP from then on). */
    public boolean warm() {
        return warm;
    }

    /**
     * With the database there at boot (the schema applier ran first, on this thread), the warm-up runs here: the
     * broker starts warm and readiness is never down for it. Otherwise, or if this first run fails, it runs on a
     * thread of its own once the schema is applied, and readiness waits for it.
     */
    void onStart(@Observes @Priority(50) StartupEvent event) {
        if (schema.ready()) {
            long t0 = System.nanoTime();
            try {
                warmUp(t0);
                return;
            } catch (SQLException | RuntimeException e) {
                LOG.warnf("hot path warm-up failed at boot, retrying in the background: %s", e.toString());
            }
        }
        // the retry thread completes whenReady(); the warm-up runs on a thread of its own, never on that one
        schema.whenReady().thenRun(() -> Thread.ofVirtual().name("queen-warm-up").start(this::run));
    }

    private void warmUp(long t0) throws SQLException {
        waiting = "the push, pop and ack paths' first run";
        warmDatabasePaths();
        warm = true;
        LOG.infof("hot path warm in %d ms: %d pooled connections ran a push, pop and ack (rolled back)",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), CONNECTIONS);
    }

    /**
     * The HTTP pipeline's first requests, once the server listens (the event comes after the boot's warm-up). Best
     * effort and not a condition of readiness: a few hundred milliseconds at most, and the listener may be bound
     * where this broker cannot reach itself.
     */
    void onHttpStart(@Observes HttpServerStart start) {
        int port = start.options().getPort();
        Thread.ofVirtual().name("queen-warm-up-http").start(() -> {
            long t0 = System.nanoTime();
            int answered = warmHttp(port);
            LOG.debugf("HTTP pipeline warm in %d ms: %d requests answered",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), answered);
        });
    }

    void onStop(@Observes ShutdownEvent event) {
        stopping.countDown();
    }

    private void run() {
        long backoff = RETRY_FIRST_MS;
        try {
            long t0 = System.nanoTime();
            for (int attempt = 1; ; attempt++) {
                try {
                    warmUp(t0);
                    return;
                } catch (SQLException | RuntimeException e) {
                    if (attempt >= MAX_ATTEMPTS) {
                        // the warm-up is a speed-up, not a condition of correctness: a database that refuses it
                        // (read-only, say) must not keep a broker that can serve reads out of its Service
                        warm = true;
                        LOG.warnf("hot path warm-up gave up after %d attempts, serving cold: %s", attempt,
                                e.toString());
                        return;
                    }
                    waiting = "the push, pop and ack paths' first run (retrying: " + e.getClass().getSimpleName()
                            + ")";
                    LOG.warnf("hot path warm-up failed, retrying in %d ms: %s", backoff, e.toString());
                    if (stopping.await(backoff, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                    backoff = Math.min(RETRY_MAX_MS, backoff * 2);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void warmDatabasePaths() throws SQLException {
        int n = Math.max(1, Math.min(CONNECTIONS, ds.getConfiguration().connectionPoolConfiguration().maxSize()));
        List<Connection> held = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                Connection c = ds.getConnection();
                held.add(c);
                c.setAutoCommit(false);
            }
            for (Connection c : held) {
                try {
                    roundTrip(c);
                } finally {
                    c.rollback();
                }
            }
        } finally {
            for (Connection c : held) {
                try {
                    c.setAutoCommit(true);
                    c.close();
                } catch (SQLException e) {
                    LOG.debugf("closing a warm-up connection: %s", e.getMessage());
                }
            }
        }
    }

    /** One push, two pops, two acks on {@code c}'s open transaction (the caller rolls it back). */
    private void roundTrip(Connection c) throws SQLException {
        UUID tenant = UUID.randomUUID();
        String queue = "queen-warm-up";
        String partition = "p";
        String group = "__QUEUE_MODE__";
        List<PushItem> items = new ArrayList<>(2);
        List<byte[]> hashes = new ArrayList<>(2);
        for (int i = 0; i < 2; i++) {
            String txn = "warm-" + i;
            byte[] txnUtf8 = txn.getBytes(StandardCharsets.UTF_8);
            items.add(new PushItem(i, queue, partition, txn, txnUtf8, null, UUID.randomUUID(),
                    ("{\"warm\":" + i + "}").getBytes(StandardCharsets.UTF_8), false));
            hashes.add(TransactionHash.of(txnUtf8));
        }
        // the caller rolls back: the writes' after-commit work is never run
        PushStore.SegmentResult[] pushed = writer.inTransaction(c, tenant).write(List.of(items));
        UUID pid = pushed[0].partitionId();

        String lease = UUID.randomUUID().toString();
        List<PopStore.ClaimedSegment> claimed = pops.popPartition(c, tenant, queue, partition,
                new PopStore.Claim(group, 1, lease, false, null, null));
        for (PopStore.ClaimedSegment s : claimed) {
            SegmentCodec.decode(s.blob(), s.startIdx(), s.take());
        }
        acks.ackMulti(c, List.of(new AckFusion.Positional(pid, group, pushed[0].baseOffset(), lease)));
        String second = UUID.randomUUID().toString();
        pops.popQueue(c, tenant, queue, new PopStore.Claim(group, 1, second, false, null, null), 1, Instant.EPOCH);
        acks.ackByHash(c, pid, group, second, new byte[][] {hashes.get(1)}, new String[] {"completed"});
    }

    /** Requests that write nothing through this broker's own port; answers of any status count. */
    private int warmHttp(int port) {
        if (port <= 0) {
            return 0;
        }
        String base = "http://127.0.0.1:" + port;
        // not a pop of an unknown queue: it would be counted as an empty pop of that queue in the metrics
        String unknownQueue = "queen-warm-up-" + UUID.randomUUID();
        List<HttpRequest> requests = List.of(
                HttpRequest.newBuilder(URI.create(base + "/api/v1/resources/queues/" + unknownQueue))
                        .timeout(Duration.ofSeconds(10)).GET().build(),
                json(base + "/api/v1/ack/batch", "{\"acknowledgments\":[]}"),
                json(base + "/api/v1/push", "{\"items\":[]}"));
        int answered = 0;
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            for (HttpRequest r : requests) {
                try {
                    client.send(r, HttpResponse.BodyHandlers.discarding());
                    answered++;
                } catch (java.io.IOException e) {
                    // a listener bound to another address or TLS only: the pipeline warms on the first real request
                    LOG.debugf("warm-up request to %s not answered: %s", r.uri().getPath(), e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return answered;
                }
            }
        }
        return answered;
    }

    private static HttpRequest json(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
