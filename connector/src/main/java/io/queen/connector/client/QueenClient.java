package io.queen.connector.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queen.connector.client.Wire.AckItem;
import io.queen.connector.client.Wire.AckResult;
import io.queen.connector.client.Wire.PopRequest;
import io.queen.connector.client.Wire.PopResponse;
import io.queen.connector.client.Wire.PoppedMessage;
import io.queen.connector.client.Wire.PushItem;
import io.queen.connector.client.Wire.PushResult;
import io.queen.connector.client.Wire.TransactionResult;

/**
 * An asynchronous client of the Queen HTTP API, one per channel.
 * <p>
 * Failover: the client talks to one broker URL at a time and moves to the next URL of the list when a request
 * cannot reach it (connection refused, reset, timeout). Brokers are stateless replicas of one database, so
 * any URL serves any request. Requests that are safe to repeat (push with client-minted transaction ids, acks,
 * lease extension) are also retried after a 5xx with a short backoff; pops are never retried here because the
 * poll loop simply polls again.
 * <p>
 * Every request's final outcome is reported to the {@link Listener} (the channel's {@link BrokerLink}): an HTTP
 * answer of any status means a broker is reachable, a connection failure on every URL means none is.
 * <p>
 * Thread-safe: the JDK {@link HttpClient} is thread-safe; the mutable state is the index of the current URL and
 * the in-flight count (atomics) and the listener (volatile).
 */
public final class QueenClient implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(QueenClient.class.getName());

    private final List<URI> bases;
    private final AtomicInteger current = new AtomicInteger();
    private final String authorization;
    private final Duration requestTimeout;
    private final int retries;
    private final HttpClient http;
    private final ObjectMapper mapper;
    private final AtomicInteger inflight = new AtomicInteger();
    private volatile Listener listener;
    private volatile BrokerLink link;

    /** Told the final outcome of every request. Implementations must be thread-safe and not block. */
    public interface Listener {
        /** A broker answered (any HTTP status). */
        void answered();

        /** No broker could be reached ({@code error}: the connection failure). */
        void unreachable(Throwable error);
    }

    /**
     * @param urls comma-separated broker base URLs, e.g. {@code http://a:6632,http://b:6632}
     * @param token bearer token, sent as {@code Authorization: Bearer <token>} when present
     * @param requestTimeout timeout of a non-polling request
     * @param retries how often a repeatable request is re-sent after a transient failure (per URL)
     */
    public QueenClient(String urls, Optional<String> token, Duration requestTimeout, int retries, ObjectMapper mapper) {
        this.bases = Arrays.stream(urls.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(s -> URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s))
                .toList();
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("url must name at least one broker");
        }
        this.authorization = token.filter(t -> !t.isBlank()).map(t -> "Bearer " + t).orElse(null);
        this.requestTimeout = requestTimeout;
        this.retries = Math.max(0, retries);
        this.mapper = mapper;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    /** Attaches the link that tracks reachability: told the outcome of every request. */
    public void link(BrokerLink link) {
        this.link = link;
        this.listener = link;
    }

    /** The link tracking whether a broker is reachable; null until attached. */
    public BrokerLink link() {
        return link;
    }

    /** Requests sent and not answered yet (a parked long poll counts). */
    public int inflight() {
        return inflight.get();
    }

    /** The broker URLs as configured (for logs). */
    public String urls() {
        return bases.stream().map(URI::toString).collect(java.util.stream.Collectors.joining(","));
    }

    /** The URL currently in use (for health reports). */
    public URI currentUrl() {
        return bases.get(Math.floorMod(current.get(), bases.size()));
    }

    /** Pops a batch; an empty optional means 204 (nothing deliverable before the long-poll timeout). */
    public CompletableFuture<Optional<PopResponse>> pop(PopRequest r) {
        StringBuilder path = new StringBuilder("/api/v1/pop/queue/").append(encode(r.queue()));
        if (r.partition() != null) {
            path.append("/partition/").append(encode(r.partition()));
        }
        path.append("?batch=").append(r.batch())
                .append("&wait=").append(r.longPoll())
                .append("&timeout=").append(r.timeoutMs());
        if (r.consumerGroup() != null) {
            path.append("&consumerGroup=").append(encode(r.consumerGroup()));
        }
        if (r.partition() == null && r.partitions() > 1) {
            path.append("&partitions=").append(r.partitions());
        }
        if (r.subscriptionMode() != null) {
            path.append("&subscriptionMode=").append(encode(r.subscriptionMode()));
        }
        if (r.subscriptionFrom() != null) {
            path.append("&subscriptionFrom=").append(encode(r.subscriptionFrom()));
        }
        // The broker holds a long poll up to `timeout`; give the answer time to travel back.
        Duration timeout = r.longPoll() ? Duration.ofMillis(r.timeoutMs() + 5_000) : requestTimeout;
        return send("GET", path.toString(), null, timeout, false).thenApply(res -> {
            if (res.status == 204 || res.body == null || !res.body.has("messages")) {
                return Optional.<PopResponse> empty();
            }
            JsonNode body = res.body;
            List<PoppedMessage> messages = new ArrayList<>();
            for (JsonNode m : body.get("messages")) {
                if (m == null || m.isNull()) {
                    continue;
                }
                messages.add(new PoppedMessage(text(m, "id"), text(m, "transactionId"), text(m, "partitionId"),
                        text(m, "leaseId") != null ? text(m, "leaseId") : text(body, "leaseId"),
                        m.has("data") ? m.get("data") : mapper.nullNode(), text(m, "createdAt"),
                        text(m, "traceId"), text(m, "traceparent"),
                        text(m, "queue") != null ? text(m, "queue") : text(body, "queue"),
                        text(m, "partition"),
                        text(m, "consumerGroup") != null ? text(m, "consumerGroup") : text(body, "consumerGroup"),
                        m.hasNonNull("offset") ? m.get("offset").asLong(-1) : -1));
            }
            if (messages.isEmpty()) {
                return Optional.<PopResponse> empty();
            }
            return Optional.of(new PopResponse(text(body, "queue"), text(body, "leaseId"),
                    text(body, "consumerGroup"), messages));
        });
    }

    /** Pushes items in one request; the results are in input order. */
    public CompletableFuture<List<PushResult>> push(List<PushItem> items) {
        ObjectNode body = mapper.createObjectNode();
        ArrayNode array = body.putArray("items");
        for (PushItem item : items) {
            array.add(pushItemJson(item));
        }
        // Safe to repeat: every item carries a client-minted transaction id, so a re-send dedups.
        return send("POST", "/api/v1/push", body, requestTimeout, true).thenApply(res -> {
            List<PushResult> results = new ArrayList<>(items.size());
            if (res.body == null || !res.body.isArray()) {
                throw new QueenHttpException(res.status, "push answered without a result array");
            }
            for (JsonNode r : res.body) {
                results.add(new PushResult(r.path("index").asInt(results.size()), text(r, "status"),
                        text(r, "message_id"), text(r, "error")));
            }
            if (results.size() != items.size()) {
                throw new QueenHttpException(res.status,
                        "push answered " + results.size() + " results for " + items.size() + " items");
            }
            results.sort((a, b) -> Integer.compare(a.index(), b.index()));
            return results;
        });
    }

    /** Acknowledges several messages of one consumer group in one request, in the given order. */
    public CompletableFuture<List<AckResult>> ackBatch(String consumerGroup, List<AckItem> acks) {
        ObjectNode body = mapper.createObjectNode();
        ArrayNode array = body.putArray("acknowledgments");
        for (AckItem a : acks) {
            array.add(ackJson(a));
        }
        body.put("consumerGroup", consumerGroup == null ? Wire.QUEUE_MODE : consumerGroup);
        return send("POST", "/api/v1/ack/batch", body, requestTimeout, true).thenApply(res -> {
            List<AckResult> results = new ArrayList<>();
            if (res.body != null && res.body.isArray()) {
                for (JsonNode r : res.body) {
                    results.add(new AckResult(r.path("index").asInt(results.size()), r.path("success").asBoolean(false),
                            text(r, "error"), r.path("dlq").asBoolean(false)));
                }
            }
            return results;
        });
    }

    /** Extends every live lease under {@code leaseId} to at least now + {@code seconds}; false when it is gone. */
    public CompletableFuture<Boolean> extendLease(String leaseId, int seconds) {
        ObjectNode body = mapper.createObjectNode().put("seconds", seconds);
        return send("POST", "/api/v1/lease/" + encode(leaseId) + "/extend", body, requestTimeout, true)
                .thenApply(res -> res.body != null && res.body.path("success").asBoolean(true))
                .exceptionally(t -> {
                    if (unwrap(t) instanceof QueenHttpException e && (e.status() == 404 || e.status() == 409)) {
                        return false;
                    }
                    throw t instanceof CompletionException ce ? ce : new CompletionException(t);
                });
    }

    /**
     * Runs {@code POST /api/v1/transaction}. Re-sending after an ambiguous failure is safe for exactly-once:
     * the pushed items carry deterministic transaction ids and the ack of an already committed offset is
     * idempotent, so a repeat of a committed transaction cannot add outputs.
     */
    public CompletableFuture<TransactionResult> transaction(JsonNode operations, List<String> requiredLeases) {
        ObjectNode body = mapper.createObjectNode();
        body.set("operations", operations);
        ArrayNode leases = body.putArray("requiredLeases");
        requiredLeases.forEach(leases::add);
        return send("POST", "/api/v1/transaction", body, requestTimeout, true).thenApply(res -> new TransactionResult(
                res.body != null && res.body.path("success").asBoolean(false),
                res.body == null ? "empty answer" : text(res.body, "error")));
    }

    /**
     * {@code POST} to a {@code /streams/v1} route. A 2xx answer completes with its body (a rolled-back cycle is a
     * 200 with {@code success:false}); a 4xx fails with {@link QueenHttpException}. {@code repeatable}: re-sent
     * after transient failures (a cycle is: a repeat of a committed cycle is refused, see QueenTransactions).
     */
    public CompletableFuture<JsonNode> streams(String path, JsonNode body, boolean repeatable) {
        return send("POST", path, body, requestTimeout, repeatable)
                .thenApply(res -> res.body == null ? mapper.createObjectNode() : res.body);
    }

    /**
     * {@code GET /api/v1/consumer-groups/:group}: per queue of the group, its partitions with their
     * {@code offsetLag}; {@code {}} for an unknown group.
     */
    public CompletableFuture<JsonNode> consumerGroup(String group) {
        return send("GET", "/api/v1/consumer-groups/" + encode(group), null, requestTimeout, false)
                .thenApply(res -> res.body == null ? mapper.createObjectNode() : res.body);
    }

    /** {@code GET /health}: completes normally when a broker answers 200. */
    public CompletableFuture<Void> health() {
        return send("GET", "/health", null, requestTimeout, false).thenApply(r -> null);
    }

    public ObjectNode pushItemJson(PushItem item) {
        ObjectNode o = mapper.createObjectNode();
        o.put("queue", item.queue());
        if (item.partition() != null) {
            o.put("partition", item.partition());
        }
        o.set("payload", item.payload() == null ? mapper.nullNode() : item.payload());
        if (item.transactionId() != null) {
            o.put("transactionId", item.transactionId());
        }
        if (item.traceId() != null) {
            o.put("traceId", item.traceId());
        }
        if (item.traceparent() != null) {
            o.put("traceparent", item.traceparent());
        }
        return o;
    }

    private ObjectNode ackJson(AckItem a) {
        ObjectNode o = mapper.createObjectNode();
        o.put("transactionId", a.transactionId());
        o.put("partitionId", a.partitionId());
        o.put("status", a.status());
        if (a.leaseId() != null && !a.leaseId().isEmpty()) {
            o.put("leaseId", a.leaseId());
        }
        if (a.error() != null) {
            o.put("error", a.error());
        }
        return o;
    }

    private record Answer(int status, JsonNode body) {
    }

    private CompletableFuture<Answer> send(String method, String path, JsonNode body, Duration timeout,
            boolean repeatable) {
        int maxAttempts = bases.size() * (1 + (repeatable ? retries : 0));
        inflight.incrementAndGet();
        CompletableFuture<Answer> f = attempt(method, path, body, timeout, repeatable, 1, maxAttempts);
        f.whenComplete((a, t) -> {
            inflight.decrementAndGet();
            Listener l = listener;
            if (l == null) {
                return;
            }
            if (t == null || unwrap(t) instanceof QueenHttpException e && e.status() >= 0) {
                l.answered();
            } else if (BrokerLink.isConnectionFailure(t)) {
                l.unreachable(unwrap(t));
            }
        });
        return f;
    }

    private CompletableFuture<Answer> attempt(String method, String path, JsonNode body, Duration timeout,
            boolean repeatable, int attempt, int maxAttempts) {
        int index = current.get();
        URI base = bases.get(Math.floorMod(index, bases.size()));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Accept", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofByteArray(bytes(body)));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray())
                .handle((res, failure) -> {
                    if (failure != null) {
                        Throwable cause = unwrap(failure);
                        // A long poll that timed out on our side is not a broker failure: do not fail over.
                        boolean pollTimeout = cause instanceof HttpTimeoutException && !repeatable;
                        if (!pollTimeout && cause instanceof IOException) {
                            // Unreachable broker: the next attempt goes to the next URL of the list.
                            current.compareAndSet(index, index + 1);
                        }
                        if (attempt < maxAttempts && cause instanceof IOException && (repeatable || !pollTimeout)) {
                            return retryLater(method, path, body, timeout, repeatable, attempt, maxAttempts);
                        }
                        return CompletableFuture.<Answer> failedFuture(
                                new QueenHttpException(method + " " + path + " failed: " + cause, cause));
                    }
                    int status = res.statusCode();
                    JsonNode json = parse(res.body());
                    if (status >= 200 && status < 300) {
                        return CompletableFuture.completedFuture(new Answer(status, json));
                    }
                    if (status >= 500 && repeatable && attempt < maxAttempts) {
                        return retryLater(method, path, body, timeout, repeatable, attempt, maxAttempts);
                    }
                    String error = json != null && json.hasNonNull("error") ? json.get("error").asText()
                            : new String(res.body(), StandardCharsets.UTF_8);
                    return CompletableFuture.<Answer> failedFuture(
                            new QueenHttpException(status, method + " " + path + " -> " + status + ": " + error));
                })
                .thenCompose(f -> f);
    }

    private CompletableFuture<Answer> retryLater(String method, String path, JsonNode body, Duration timeout,
            boolean repeatable, int attempt, int maxAttempts) {
        long delay = Math.min(2_000, 100L << Math.min(attempt, 5));
        LOG.log(System.Logger.Level.DEBUG, "retrying {0} {1} in {2} ms (attempt {3})", method, path, delay, attempt);
        return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
                .thenCompose(x -> attempt(method, path, body, timeout, repeatable, attempt + 1, maxAttempts));
    }

    private byte[] bytes(JsonNode body) {
        try {
            return mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public void close() {
        BrokerLink l = link;
        if (l != null) {
            l.close();
        }
        http.shutdownNow();
    }
}
