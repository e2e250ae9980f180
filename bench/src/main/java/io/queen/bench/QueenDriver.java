package io.queen.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Drives the Queen broker over its HTTP API (spec sections 3.1, 3.3, 3.4, 3.7) with java.net.http. */
public final class QueenDriver implements Driver {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final Config cfg;
    private final String runId;
    private final String base;
    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonFactory json = mapper.getFactory();
    private final ExecutorService httpExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http;
    private final Set<String> queues = new LinkedHashSet<>();

    /** What an explicit ack needs from a popped message. */
    record AckHandle(String transactionId, String partitionId, String leaseId) {}

    public QueenDriver(Config cfg, String runId) {
        this.cfg = cfg;
        this.runId = runId;
        this.base = cfg.url();
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(httpExecutor)
                .build();
    }

    @Override
    public String name() {
        return "queen";
    }

    /** Queue names of a run: {@code <prefix>-<run-id>-q<i>}. */
    public static String queueName(String prefix, String runId, int i) {
        return prefix + "-" + runId + "-q" + i;
    }

    private URI uri(String pathAndQuery) {
        return URI.create(base + pathAndQuery);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Every broker request: carries the run's token, when it has one. */
    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        return cfg.token() == null ? b : b.header("Authorization", "Bearer " + cfg.token());
    }

    private HttpResponse<byte[]> send(HttpRequest req) throws IOException, InterruptedException {
        return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest.Builder post(String path, byte[] body, Duration timeout) {
        return request(uri(path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    }

    /** Size of the message tables when the run starts (null: not measurable). */
    private Long diskBefore;

    @Override
    public void setup(List<Target> targets) throws Exception {
        try {
            HttpResponse<byte[]> h = send(request(uri("/health")).timeout(Duration.ofSeconds(10))
                    .GET().build());
            if (h.statusCode() >= 500) {
                throw new IllegalStateException("broker health check answered " + h.statusCode());
            }
        } catch (ConnectException e) {
            throw new IllegalStateException("broker not reachable at " + base + " (connection refused)", e);
        }
        for (Target t : targets) {
            queues.add(t.queue());
        }
        for (String q : queues) {
            var options = mapper.createObjectNode();
            if (cfg.minPopWaitMs() > 0) {
                options.put("minPopWaitTime", cfg.minPopWaitMs());
            }
            if (cfg.dedupWindow() > 0) {
                options.put("dedupWindowSeconds", cfg.dedupWindow());
            }
            if (cfg.retention()) {
                options.put("retentionEnabled", true);
                options.put("completedRetentionSeconds", 60);
            }
            var body = mapper.createObjectNode();
            body.put("queue", q);
            body.set("options", options);
            HttpResponse<byte[]> r = send(post("/api/v1/configure", mapper.writeValueAsBytes(body), REQUEST_TIMEOUT)
                    .build());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException("configure " + q + " answered " + r.statusCode() + ": "
                        + new String(r.body(), StandardCharsets.UTF_8));
            }
            JsonNode res = mapper.readTree(r.body());
            if (!res.path("configured").asBoolean(false)) {
                throw new IllegalStateException("configure " + q + " did not answer configured:true: " + res);
            }
        }
        diskBefore = diskBytes();
    }

    @Override
    public ProducerSession producer(int id) {
        return this::push;
    }

    byte[] pushBody(Target target, List<OutMessage> batch) {
        var out = new ByteArrayOutputStream(batch.size() * (cfg.payloadBytes() + 128) + 32);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("items");
            for (OutMessage m : batch) {
                g.writeStartObject();
                g.writeStringField("queue", target.queue());
                g.writeStringField("partition", target.partition());
                g.writeStringField("transactionId", m.transactionId());
                g.writeFieldName("payload");
                g.writeRawValue(m.payload());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private List<PushOutcome> push(Target target, List<OutMessage> batch) {
        HttpResponse<byte[]> r;
        try {
            r = send(post("/api/v1/push", pushBody(target, batch), REQUEST_TIMEOUT).build());
        } catch (HttpTimeoutException e) {
            return all(batch.size(), PushStatus.FAILED, "push-timeout");
        } catch (IOException e) {
            return all(batch.size(), PushStatus.FAILED, "push-io");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return all(batch.size(), PushStatus.FAILED, "push-interrupted");
        }
        if (r.statusCode() / 100 != 2) {
            return all(batch.size(), PushStatus.FAILED, "push-http-" + r.statusCode());
        }
        return parsePushResponse(r.body(), batch.size());
    }

    List<PushOutcome> parsePushResponse(byte[] body, int n) {
        JsonNode arr;
        try {
            arr = mapper.readTree(body);
        } catch (IOException e) {
            return all(n, PushStatus.FAILED, "push-bad-response");
        }
        if (arr == null || !arr.isArray()) {
            return all(n, PushStatus.FAILED, "push-bad-response");
        }
        List<PushOutcome> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            JsonNode item = arr.get(i);
            if (item == null) {
                out.add(new PushOutcome(PushStatus.FAILED, "push-response-short"));
                continue;
            }
            String status = item.path("status").asText("");
            out.add(switch (status) {
                case "queued" -> new PushOutcome(PushStatus.QUEUED, null);
                case "buffered" -> new PushOutcome(PushStatus.BUFFERED, null);
                case "duplicate" -> new PushOutcome(PushStatus.DUPLICATE, "push-item-duplicate");
                case "failed" -> new PushOutcome(PushStatus.FAILED, "push-item-failed");
                default -> new PushOutcome(PushStatus.FAILED, "push-item-status-" + (status.isEmpty() ? "missing" : status));
            });
        }
        return out;
    }

    private static List<PushOutcome> all(int n, PushStatus s, String kind) {
        var o = new PushOutcome(s, kind);
        var out = new ArrayList<PushOutcome>(n);
        for (int i = 0; i < n; i++) {
            out.add(o);
        }
        return out;
    }

    @Override
    public ConsumerSession consumer(int id, String group) {
        return new ConsumerSession() {
            @Override
            public PopResult pop(String queue, Target target, int batch, int waitMs) {
                return QueenDriver.this.pop(queue, target, group, batch, waitMs);
            }

            @Override
            public List<AckOutcome> ack(List<Delivery> deliveries) {
                return QueenDriver.this.ack(group, deliveries);
            }
        };
    }

    String popPath(String queue, Target target, String group, int batch, int waitMs) {
        var sb = new StringBuilder("/api/v1/pop/queue/").append(enc(queue));
        if (target != null) {
            sb.append("/partition/").append(enc(target.partition()));
        }
        sb.append("?batch=").append(batch);
        if (waitMs > 0) {
            sb.append("&wait=true&timeout=").append(waitMs);
        } else {
            sb.append("&wait=false");
        }
        if (group != null) {
            sb.append("&consumerGroup=").append(enc(group)).append("&subscriptionMode=all");
        }
        if (cfg.autoAck()) {
            sb.append("&autoAck=true");
        }
        return sb.toString();
    }

    private PopResult pop(String queue, Target target, String group, int batch, int waitMs) {
        HttpRequest req = request(uri(popPath(queue, target, group, batch, waitMs)))
                .timeout(Duration.ofMillis(waitMs + 5_000L))
                .GET()
                .build();
        HttpResponse<byte[]> r;
        try {
            r = send(req);
        } catch (HttpTimeoutException e) {
            return PopResult.error("pop-timeout");
        } catch (IOException e) {
            return PopResult.error("pop-io");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PopResult.error("pop-interrupted");
        }
        if (r.statusCode() == 204) {
            return PopResult.EMPTY;
        }
        if (r.statusCode() / 100 != 2) {
            return PopResult.error("pop-http-" + r.statusCode());
        }
        return parsePopResponse(r.body(), queue, target);
    }

    /**
     * Streaming parse (no tree): the tool shares the machine with the broker and PostgreSQL, so it reads only what
     * it needs: transactionId, partitionId, leaseId, partition and the stamp fields of {@code data}.
     */
    PopResult parsePopResponse(byte[] body, String queue, Target target) {
        if (body.length == 0) {
            return PopResult.EMPTY;
        }
        List<Delivery> out = new ArrayList<>();
        try (JsonParser p = json.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return PopResult.error("pop-bad-response");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (!"messages".equals(field) || v != JsonToken.START_ARRAY) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    out.add(message(p, queue, target));
                }
            }
        } catch (IOException e) {
            return PopResult.error("pop-bad-response");
        }
        return out.isEmpty() ? PopResult.EMPTY : new PopResult(out, null);
    }

    private static Delivery message(JsonParser p, String queue, Target target) throws IOException {
        String txn = null;
        String pid = null;
        String lease = "";
        String partition = null;
        Payloads.Stamp stamp = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            switch (f) {
                case "transactionId" -> txn = v == JsonToken.VALUE_STRING ? p.getText() : null;
                case "partitionId" -> pid = v == JsonToken.VALUE_STRING ? p.getText() : null;
                case "leaseId" -> lease = v == JsonToken.VALUE_STRING ? p.getText() : "";
                case "partition" -> partition = v == JsonToken.VALUE_STRING ? p.getText() : null;
                case "data" -> stamp = v == JsonToken.START_OBJECT ? Payloads.stampOf(p) : skip(p);
                default -> p.skipChildren();
            }
        }
        String partKey = pid != null ? pid
                : (partition != null ? queue + "/" + partition : (target != null ? target.key() : queue));
        return new Delivery(txn, partKey, stamp, new AckHandle(txn, pid, lease));
    }

    private static Payloads.Stamp skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    byte[] ackBody(String group, List<Delivery> deliveries) {
        var out = new ByteArrayOutputStream(deliveries.size() * 160 + 64);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("acknowledgments");
            for (Delivery d : deliveries) {
                AckHandle h = (AckHandle) d.ackHandle();
                g.writeStartObject();
                g.writeStringField("transactionId", h.transactionId());
                g.writeStringField("partitionId", h.partitionId());
                if (h.leaseId() != null && !h.leaseId().isEmpty()) {
                    g.writeStringField("leaseId", h.leaseId());
                }
                g.writeStringField("status", "completed");
                g.writeEndObject();
            }
            g.writeEndArray();
            if (group != null) {
                g.writeStringField("consumerGroup", group);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private List<AckOutcome> ack(String group, List<Delivery> deliveries) {
        List<Delivery> ackable = new ArrayList<>(deliveries.size());
        for (Delivery d : deliveries) {
            AckHandle h = (AckHandle) d.ackHandle();
            if (h.transactionId() != null && h.partitionId() != null) {
                ackable.add(d);
            }
        }
        HttpResponse<byte[]> r;
        try {
            r = send(post("/api/v1/ack/batch", ackBody(group, ackable), REQUEST_TIMEOUT).build());
        } catch (HttpTimeoutException e) {
            return allAcks(deliveries.size(), "ack-timeout");
        } catch (IOException e) {
            return allAcks(deliveries.size(), "ack-io");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return allAcks(deliveries.size(), "ack-interrupted");
        }
        if (r.statusCode() / 100 != 2) {
            return allAcks(deliveries.size(), "ack-http-" + r.statusCode());
        }
        // streaming parse of the per-item answers: success, and error when it failed
        List<AckOutcome> answers = new ArrayList<>(ackable.size());
        try (JsonParser p = json.createParser(r.body())) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                return allAcks(deliveries.size(), "ack-bad-response");
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
                boolean success = false;
                String err = "unknown";
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String f = p.currentName();
                    JsonToken v = p.nextToken();
                    if (f.equals("success")) {
                        success = v == JsonToken.VALUE_TRUE;
                    } else if (f.equals("error") && v == JsonToken.VALUE_STRING) {
                        err = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
                answers.add(success ? new AckOutcome(true, null)
                        : new AckOutcome(false, "ack-failed: " + (err.length() > 60 ? err.substring(0, 60) : err)));
            }
        } catch (IOException e) {
            return allAcks(deliveries.size(), "ack-bad-response");
        }
        List<AckOutcome> out = new ArrayList<>(deliveries.size());
        int j = 0;
        for (Delivery d : deliveries) {
            AckHandle h = (AckHandle) d.ackHandle();
            if (h.transactionId() == null || h.partitionId() == null) {
                out.add(new AckOutcome(false, "ack-missing-address"));
                continue;
            }
            out.add(j < answers.size() ? answers.get(j) : new AckOutcome(false, "ack-response-short"));
            j++;
        }
        return out;
    }

    private static List<AckOutcome> allAcks(int n, String kind) {
        var out = new ArrayList<AckOutcome>(n);
        for (int i = 0; i < n; i++) {
            out.add(new AckOutcome(false, kind));
        }
        return out;
    }

    @Override
    public Map<String, Double> counters() {
        try {
            HttpResponse<String> r = http.send(request(uri("/metrics/prometheus"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return Map.of();
            }
            return PromScrape.parse(r.body());
        } catch (IOException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
    }

    @Override
    public Storage storageAfterPush(long pushed) {
        return null;
    }

    /** On-disk size of the two tables that hold messages (heap + TOAST + indexes + free space maps). */
    private Long diskBytes() {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); PreparedStatement ps = c.prepareStatement(
                "SELECT pg_total_relation_size('queen.log_segments') + pg_total_relation_size('queen.log_txns')");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return null;
        }
    }

    /** Escapes LIKE wildcards so the prefix is matched literally. */
    static String likePrefix(String prefix) {
        return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    @Override
    public Storage storageAtEnd(long pushed) {
        String pattern = likePrefix(cfg.queue() + "-" + runId + "-q");
        String sql = """
                SELECT
                  (SELECT coalesce(sum(pg_column_size(s.blob)), 0) FROM queen.log_segments s
                     JOIN queen.log_partitions p ON p.id = s.partition_id
                     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name LIKE ?),
                  (SELECT coalesce(sum(pg_column_size(t.hashes)), 0) FROM queen.log_txns t
                     JOIN queen.log_partitions p ON p.id = t.partition_id
                     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name LIKE ?)
                """;
        try (Connection c = Jdbc.connect(cfg.pgUrl()); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, pattern);
            ps.setString(2, pattern);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long blobs = rs.getLong(1);
                long hashes = rs.getLong(2);
                long bytes = blobs + hashes;
                String note = "segment blobs " + blobs + " B + txn hashes " + hashes + " B, measured at the end of the run";
                if (cfg.retention()) {
                    note += "; retention was on, so segments it deleted are not counted";
                }
                Long after = diskBytes();
                Double disk = null;
                // relation growth means something only when nothing was deleted meanwhile (vacuum can truncate)
                if (cfg.retention()) {
                    note += "; on disk: n/a (retention deleted rows during the run)";
                } else if (diskBefore != null && after != null && after >= diskBefore && pushed > 0) {
                    disk = (after - diskBefore) / (double) pushed;
                    note += "; on disk: growth of log_segments + log_txns (heap, TOAST, indexes) during the run, "
                            + (after - diskBefore) + " B (exact only when nothing else writes to the database and no"
                            + " space freed earlier is reused: use a fresh database)";
                }
                return new Storage(bytes, pushed, pushed > 0 ? bytes / (double) pushed : null, disk, note);
            }
        } catch (Exception e) {
            return Storage.unavailable("n/a: " + e.getMessage());
        }
    }

    @Override
    public Long brokerPid() {
        if (cfg.brokerPid() != null) {
            return cfg.brokerPid();
        }
        URI u = URI.create(base);
        int port = u.getPort() > 0 ? u.getPort() : ("https".equals(u.getScheme()) ? 443 : 80);
        return ProcCpu.findListeningPid(port);
    }

    @Override
    public void cleanup() {
        for (String q : queues) {
            try {
                send(request(uri("/api/v1/resources/queues/" + enc(q)))
                        .timeout(REQUEST_TIMEOUT).DELETE().build());
            } catch (IOException e) {
                // best effort
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        http.close();
        httpExecutor.close();
    }
}
