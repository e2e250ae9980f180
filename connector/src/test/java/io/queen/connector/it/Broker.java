package io.queen.connector.it;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

    private Process process;
    private final String database;
    private final int port;
    private final String jar;
    private final Path log;
    private volatile long healthyAtNanos;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Broker(String jar, String database, int port, Path log) {
        this.jar = jar;
        this.database = database;
        this.port = port;
        this.log = log;
    }

    public static Broker start(String owner) {
        String jar = System.getProperty("queen.broker.jar", "../target/quarkus-app/quarkus-run.jar");
        if (!new File(jar).isFile()) {
            throw new IllegalStateException("Broker jar " + new File(jar).getAbsolutePath()
                    + " is missing: build the broker first (./mvnw -B package -DskipTests at the repository root)");
        }
        String db = TestPostgres.createDatabase(owner);
        int port = freePort();
        Path log = Path.of("target", "broker-" + owner + "-" + port + ".log");
        Broker b = new Broker(jar, db, port, log);
        b.launch();
        return b;
    }

    /** Starts the broker process (again) on this broker's port and database; returns when it answers /health. */
    private void launch() {
        TestPostgres.Server pg = TestPostgres.server();
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder pb = new ProcessBuilder(javaExecutable(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                    "-jar", jar);
            Map<String, String> env = pb.environment();
            env.put("PORT", Integer.toString(port));
            env.put("PG_HOST", pg.host());
            env.put("PG_PORT", Integer.toString(pg.port()));
            env.put("PG_USER", pg.user());
            env.put("PG_PASSWORD", pg.password());
            env.put("PG_DATABASE", database);
            pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            process = pb.start();
            awaitHealthy(log);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the broker", e);
        }
    }

    /** Kills the broker process (SIGKILL); the database and port stay for {@link #restart()}. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the broker process is running. */
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /**
     * Starts the broker process again on the same port and database after {@link #kill()}; returns the
     * {@link System#nanoTime()} at which it first answered {@code /health} with 200.
     */
    public long restart() {
        launch();
        return healthyAtNanos;
    }

    static String javaExecutable() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void awaitHealthy(Path log) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited at start:\n" + Files.readString(log));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url() + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    healthyAtNanos = System.nanoTime();
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(20);
        }
        throw new IllegalStateException("broker not healthy after 60 s:\n" + Files.readString(log));
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
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        TestPostgres.dropDatabase(database);
    }
}
