package io.queen.connector.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A real broker process built from this repository ({@code ../target/quarkus-app/quarkus-run.jar}) on a free port,
 * with its own fresh database, plus raw HTTP helpers the tests use to set up and check queues independently of
 * the connector. One per test class. Not thread-safe for start/close; the HTTP helpers are.
 */
public final class Broker implements AutoCloseable {

    public static final ObjectMapper JSON = new ObjectMapper();

    private BrokerProcess process;
    private final String owner;
    private final String database;
    private final int port;
    /** Environment of the broker process beyond its defaults (e.g. tracing on). */
    private final Map<String, String> env;
    private volatile long healthyAtNanos;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Broker(String owner, String database, int port, Map<String, String> env) {
        this.owner = owner;
        this.database = database;
        this.port = port;
        this.env = env;
    }

    public static Broker start(String owner) {
        return start(owner, Map.of());
    }

    /** A broker whose process also gets the environment variables {@code env}. */
    public static Broker start(String owner, Map<String, String> env) {
        Broker b = new Broker(owner, TestPostgres.createDatabase(owner), freePort(), env);
        b.launch();
        return b;
    }

    /** Starts the broker process (again) on this broker's port and database; returns when it answers /health. */
    private void launch() {
        try {
            // the broker on its defaults (no embedded server, pool and spool of its own choosing)
            Map<String, String> defaults = new HashMap<>();
            defaults.put("QUEEN_EMBEDDED_PG", null);
            defaults.put("DB_POOL_SIZE", null);
            defaults.put("QUEEN_SPOOL_DIR", null);
            defaults.putAll(env);
            process = BrokerProcess.launch(owner, TestPostgres.server(), database, defaults, port);
            healthyAtNanos = process.awaitHealthy(Duration.ofSeconds(60));
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the broker", e);
        }
    }

    /** Kills the broker process (SIGKILL); the database and port stay for {@link #restart()}. */
    public void kill() {
        try {
            process.kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String javaExecutable() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    static int freePort() {
        try {
            return BrokerProcess.freePort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the broker process is running. */
    public boolean isAlive() {
        return process != null && process.alive();
    }

    /**
     * Starts the broker process again on the same port and database after {@link #kill()}; returns the
     * {@link System#nanoTime()} at which it first answered {@code /health} with 200.
     */
    public long restart() {
        launch();
        return healthyAtNanos;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public JsonNode call(String method, String path, JsonNode body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(40));
            if (body != null) {
                b.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            } else {
                b.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<String> r;
            try {
                r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.net.ConnectException e) {
                // No connection was made, so nothing was sent: safe to try once more (seen under heavy load).
                sleep(200);
                r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            }
            if (r.statusCode() == 204) {
                return null;
            }
            if (r.statusCode() >= 300) {
                throw new IllegalStateException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
            }
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public void configure(String queue, Map<String, Object> options) {
        ObjectNode body = JSON.createObjectNode().put("queue", queue);
        body.set("options", JSON.valueToTree(options));
        call("POST", "/api/v1/configure", body);
    }

    /** Pushes {@code payloads} to one partition with the given transaction ids (null = server-generated). */
    public JsonNode push(String queue, String partition, List<?> payloads, List<String> txnIds) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode items = body.putArray("items");
        for (int i = 0; i < payloads.size(); i++) {
            ObjectNode it = items.addObject().put("queue", queue).put("partition", partition);
            it.set("payload", JSON.valueToTree(payloads.get(i)));
            if (txnIds != null) {
                it.put("transactionId", txnIds.get(i));
            }
        }
        return call("POST", "/api/v1/push", body);
    }

    /** Drains a queue with auto-acked pops in a fresh consumer group; returns every message in pop order. */
    public List<JsonNode> drain(String queue, String group) {
        List<JsonNode> all = new ArrayList<>();
        while (true) {
            JsonNode r = call("GET", "/api/v1/pop/queue/" + queue + "?batch=500&autoAck=true&consumerGroup=" + group
                    + "&subscriptionMode=all", null);
            if (r == null || r.path("messages").isEmpty()) {
                return all;
            }
            r.get("messages").forEach(all::add);
        }
    }

    /** {@code GET /api/v1/dlq?queue=}: {@code total} and {@code messages} (data, errorMessage, retryCount, ...). */
    public JsonNode dlq(String queue) {
        return call("GET", "/api/v1/dlq?queue=" + queue, null);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            process.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        TestPostgres.dropDatabase(database);
    }
}
