package io.queen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory stand-in for the Queen HTTP API (the subset the bench uses), on 127.0.0.1 with an ephemeral
 * port. Cursor model as in the spec: one cursor and at most one lease per (partition, group); a pop leases
 * the span (committed, committed + batch]; an ack of offset N commits everything up to N.
 * Fault switches let tests check that the bench notices broken delivery.
 */
final class FakeBroker implements AutoCloseable {

    enum Fault { NONE, DUPLICATE_FIRST_BATCH, DROP_ONE, REORDER }

    private record Msg(String id, String txn, JsonNode data, long offset) {}

    private static final class Partition {
        final String id = UUID.randomUUID().toString();
        final String name;
        final List<Msg> log = new ArrayList<>();
        final Map<String, long[]> cursors = new HashMap<>(); // group -> {committed, batchEnd(-1 = none)}
        final Map<String, String> leases = new HashMap<>();

        Partition(String name) {
            this.name = name;
        }
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpServer server;
    private final Map<String, Partition> partitions = new ConcurrentHashMap<>(); // queue/partition -> p
    private final Map<String, Partition> byId = new ConcurrentHashMap<>();
    private final AtomicLong pushMessages = new AtomicLong();
    private final AtomicLong pushRequests = new AtomicLong();
    private final AtomicLong configures = new AtomicLong();
    private final List<Integer> pushSizes = java.util.Collections.synchronizedList(new ArrayList<>());
    /** lease id -> {nanoTime of the pop's answer, messages it delivered} */
    private final Map<String, long[]> leasePops = new ConcurrentHashMap<>();
    private final List<long[]> ackGaps = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile Fault fault = Fault.NONE;
    private volatile boolean faultDone;

    FakeBroker() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void fault(Fault f) {
        fault = f;
    }

    long configures() {
        return configures.get();
    }

    /** The item count of every push request, in arrival order. */
    List<Integer> pushSizes() {
        synchronized (pushSizes) {
            return List.copyOf(pushSizes);
        }
    }

    /** Per explicit ack of a leased pop: {nanoseconds from the pop's answer to the ack, messages the pop delivered}. */
    List<long[]> ackGaps() {
        synchronized (ackGaps) {
            return List.copyOf(ackGaps);
        }
    }

    /** Every payload pushed so far, in no particular order. */
    List<JsonNode> payloads() {
        List<JsonNode> out = new ArrayList<>();
        for (Partition p : partitions.values()) {
            synchronized (p) {
                p.log.forEach(m -> out.add(m.data()));
            }
        }
        return out;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            String method = ex.getRequestMethod();
            if (path.equals("/health")) {
                send(ex, 200, "{\"status\":\"healthy\"}");
            } else if (path.equals("/metrics/prometheus")) {
                String text = "# TYPE queen_push_messages_total counter\n"
                        + "queen_push_messages_total{scope=\"cluster\"} " + pushMessages.get() + ".0\n"
                        + "queen_push_segments_total " + pushRequests.get() + "\n"
                        + "queen_push_commits_total " + pushRequests.get() + "\n";
                ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                byte[] b = text.getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
            } else if (path.equals("/api/v1/configure") && method.equals("POST")) {
                JsonNode body = mapper.readTree(ex.getRequestBody());
                configures.incrementAndGet();
                ObjectNode r = mapper.createObjectNode();
                r.put("configured", true);
                r.put("queue", body.path("queue").asText());
                r.set("options", body.path("options"));
                send(ex, 200, mapper.writeValueAsString(r));
            } else if (path.equals("/api/v1/push") && method.equals("POST")) {
                push(ex);
            } else if (path.startsWith("/api/v1/pop/queue/") && method.equals("GET")) {
                pop(ex, path.substring("/api/v1/pop/queue/".length()));
            } else if (path.equals("/api/v1/ack/batch") && method.equals("POST")) {
                ack(ex);
            } else if (path.startsWith("/api/v1/resources/queues/") && method.equals("DELETE")) {
                send(ex, 200, "{\"deleted\":true}");
            } else {
                send(ex, 404, "{\"error\":\"Not found\"}");
            }
        } catch (Exception e) {
            try {
                send(ex, 500, "{\"error\":\"" + e + "\"}");
            } catch (IOException ignored) {
                // already answered
            }
        }
    }

    private void push(HttpExchange ex) throws IOException {
        JsonNode body = mapper.readTree(ex.getRequestBody());
        ArrayNode out = mapper.createArrayNode();
        int i = 0;
        for (JsonNode item : body.path("items")) {
            String key = item.path("queue").asText() + "/" + item.path("partition").asText("Default");
            Partition p = partitions.computeIfAbsent(key, k -> {
                Partition np = new Partition(item.path("partition").asText("Default"));
                byId.put(np.id, np);
                return np;
            });
            String id = UUID.randomUUID().toString();
            synchronized (p) {
                p.log.add(new Msg(id, item.path("transactionId").asText(), item.get("payload"), p.log.size()));
                p.notifyAll();
            }
            ObjectNode r = out.addObject();
            r.put("index", i++);
            r.put("status", "queued");
            r.put("message_id", id);
            r.put("transaction_id", item.path("transactionId").asText());
            r.put("partition_id", p.id);
            pushMessages.incrementAndGet();
        }
        pushRequests.incrementAndGet();
        pushSizes.add(i);
        send(ex, 201, mapper.writeValueAsString(out));
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null) {
            return q;
        }
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                q.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return q;
    }

    private void pop(HttpExchange ex, String rest) throws IOException, InterruptedException {
        Map<String, String> q = query(ex.getRequestURI().getRawQuery());
        String[] parts = rest.split("/");
        String queue = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
        String partName = parts.length >= 3 ? URLDecoder.decode(parts[2], StandardCharsets.UTF_8) : null;
        int batch = Integer.parseInt(q.getOrDefault("batch", "1"));
        boolean wait = "true".equals(q.get("wait"));
        long timeout = Long.parseLong(q.getOrDefault("timeout", "30000"));
        String group = q.getOrDefault("consumerGroup", "__QUEUE_MODE__");
        boolean autoAck = "true".equals(q.get("autoAck"));
        long deadline = System.nanoTime() + (wait ? timeout * 1_000_000 : 0);
        while (true) {
            List<Partition> candidates = new ArrayList<>();
            if (partName != null) {
                Partition p = partitions.get(queue + "/" + partName);
                if (p != null) {
                    candidates.add(p);
                }
            } else {
                partitions.forEach((k, p) -> {
                    if (k.startsWith(queue + "/")) {
                        candidates.add(p);
                    }
                });
            }
            for (Partition p : candidates) {
                String body = tryPop(p, queue, group, batch, autoAck);
                if (body != null) {
                    if (!autoAck) { // before the answer leaves, so the consumer's ack cannot come first
                        JsonNode popped = mapper.readTree(body);
                        leasePops.put(popped.get("leaseId").asText(),
                                new long[] {System.nanoTime(), popped.get("messages").size()});
                    }
                    send(ex, 200, body);
                    return;
                }
            }
            if (System.nanoTime() >= deadline) {
                ex.sendResponseHeaders(204, -1);
                return;
            }
            Thread.sleep(5);
        }
    }

    private String tryPop(Partition p, String queue, String group, int batch, boolean autoAck) throws IOException {
        synchronized (p) {
            long[] cur = p.cursors.computeIfAbsent(group, g -> new long[] {-1, -1});
            if (cur[1] >= 0 || cur[0] + 1 >= p.log.size()) {
                return null; // leased or nothing new
            }
            long from = cur[0] + 1;
            long to = Math.min(p.log.size() - 1, cur[0] + batch);
            String lease = autoAck ? "" : UUID.randomUUID().toString();
            List<Msg> span = new ArrayList<>(p.log.subList((int) from, (int) to + 1));
            if (fault == Fault.DROP_ONE && !faultDone && span.size() > 1) {
                faultDone = true;
                span.remove(0);
            }
            if (fault == Fault.REORDER && !faultDone && span.size() > 1) {
                faultDone = true;
                Msg first = span.remove(0);
                span.add(first);
            }
            if (autoAck) {
                cur[0] = to;
            } else {
                cur[1] = to;
                p.leases.put(group, lease);
            }
            ObjectNode r = mapper.createObjectNode();
            r.put("success", true);
            r.put("queue", queue);
            r.put("partition", p.name);
            r.put("partitionId", p.id);
            r.put("leaseId", lease);
            r.put("consumerGroup", group);
            ArrayNode msgs = r.putArray("messages");
            for (Msg m : span) {
                ObjectNode o = msgs.addObject();
                o.put("id", m.id());
                o.put("transactionId", m.txn());
                o.put("partitionId", p.id);
                o.put("leaseId", lease);
                o.set("data", m.data());
                o.put("createdAt", "2026-01-01T00:00:00.000000Z");
                o.put("partition", p.name);
                o.put("offset", m.offset());
            }
            if (fault == Fault.DUPLICATE_FIRST_BATCH && !faultDone && autoAck) {
                faultDone = true;
                cur[0] = from - 1; // deliver the same span again on the next pop
            }
            return mapper.writeValueAsString(r);
        }
    }

    private void ack(HttpExchange ex) throws IOException {
        JsonNode body = mapper.readTree(ex.getRequestBody());
        String group = body.hasNonNull("consumerGroup") ? body.get("consumerGroup").asText() : "__QUEUE_MODE__";
        long now = System.nanoTime();
        ArrayNode out = mapper.createArrayNode();
        int i = 0;
        for (JsonNode a : body.path("acknowledgments")) {
            long[] pop = leasePops.remove(a.path("leaseId").asText());
            if (pop != null) {
                ackGaps.add(new long[] {now - pop[0], pop[1]});
            }
            ObjectNode r = out.addObject();
            r.put("index", i++);
            r.put("transactionId", a.path("transactionId").asText());
            Partition p = byId.get(a.path("partitionId").asText());
            if (p == null) {
                r.put("success", false);
                r.put("error", "Message not found");
                continue;
            }
            synchronized (p) {
                long off = -1;
                for (Msg m : p.log) {
                    if (m.txn().equals(a.path("transactionId").asText())) {
                        off = m.offset();
                        break;
                    }
                }
                long[] cur = p.cursors.computeIfAbsent(group, g -> new long[] {-1, -1});
                if (off < 0) {
                    r.put("success", false);
                    r.put("error", "Message not found");
                    continue;
                }
                cur[0] = Math.max(cur[0], off);
                if (cur[1] >= 0 && cur[0] >= cur[1]) {
                    cur[1] = -1;
                    p.leases.remove(group);
                }
                r.put("success", true);
                r.putNull("error");
            }
        }
        send(ex, 200, mapper.writeValueAsString(out));
    }

    private static void send(HttpExchange ex, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
