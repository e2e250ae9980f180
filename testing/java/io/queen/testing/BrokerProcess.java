package io.queen.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real broker process (the packaged jar) for multi-broker and crash tests. Its output goes to a log file
 * under target/ so a failing test can be diagnosed. Shared by the broker's and the connector's tests
 * ({@code testing/java}). Not thread-safe; one owner.
 */
public final class BrokerProcess implements AutoCloseable {
    /** Ports {@link #freePort} handed out in this JVM. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Process process;
    private final int port;
    private final Path log;

    private BrokerProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    public static BrokerProcess start(String name, TestPostgres.Server pg, String database, Map<String, String> extra)
            throws Exception {
        BrokerProcess b = launch(name, pg, database, extra);
        b.awaitHealthy(Duration.ofSeconds(60));
        return b;
    }

    /**
     * Starts the process without waiting for it to be healthy ({@code extra} may point it at another server; a
     * variable mapped to null is removed).
     */
    public static BrokerProcess launch(String name, TestPostgres.Server pg, String database, Map<String, String> extra)
            throws Exception {
        return launch(name, pg, database, extra, freePort());
    }

    /** {@link #launch} on a given port (a restarted broker keeps its address). */
    public static BrokerProcess launch(String name, TestPostgres.Server pg, String database, Map<String, String> extra,
            int port) throws Exception {
        // the broker module's own package, or the one a module beside it names (the connector's tests)
        Path jar = Path.of(System.getProperty("queen.broker.jar", "target/quarkus-app/quarkus-run.jar"));
        if (!Files.exists(jar)) {
            throw new IllegalStateException("broker jar missing: run `./mvnw package` at the repository root first ("
                    + jar.toAbsolutePath() + ")");
        }
        Path log = Path.of("target", "broker-" + name + "-" + port + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-jar",
                jar.toString());
        Map<String, String> env = pb.environment();
        env.put("PORT", String.valueOf(port));
        env.put("PG_HOST", pg.host());
        env.put("PG_PORT", String.valueOf(pg.port()));
        env.put("PG_USER", pg.user());
        env.put("PG_PASSWORD", pg.password());
        env.put("PG_DATABASE", database);
        env.put("QUEEN_EMBEDDED_PG", "false");
        env.put("DB_POOL_SIZE", "10");
        // a spool of its own per (name, database): a broker restarted under the same name finds its spool again
        env.put("QUEEN_SPOOL_DIR", Path.of("target", "spool-" + name + "-" + database).toAbsolutePath().toString());
        if (extra != null) {
            // a null value removes the variable (a broker on its defaults)
            extra.forEach((k, v) -> {
                if (v == null) {
                    env.remove(k);
                } else {
                    env.put(k, v);
                }
            });
        }
        pb.redirectErrorStream(true);
        Files.createDirectories(log.getParent());
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new BrokerProcess(pb.start(), port, log);
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Waits for the process to exit by itself: its exit code, or null if it still runs after {@code timeout}. */
    public Integer exitCode(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS) ? process.exitValue()
                : null;
    }

    public long pid() {
        return process.pid();
    }

    /** kill -9: no shutdown hook, no graceful drain. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * SIGTERM (what Kubernetes and systemd send) and wait for the process to exit; returns the milliseconds from
     * the signal to the exit. Fails if it has not exited within {@code timeout}.
     */
    public long terminate(Duration timeout) throws InterruptedException {
        long t0 = System.nanoTime();
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("broker still running " + timeout + " after SIGTERM");
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    public String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Waits until {@code /health} answers 200; returns the {@link System#nanoTime()} at which it first did. */
    public long awaitHealthy(Duration timeout) throws Exception {
        if (!Await.within(this::healthy, timeout)) {
            throw new IllegalStateException("broker not healthy within " + timeout + ":\n" + logText());
        }
        return System.nanoTime();
    }

    private boolean healthy() throws Exception {
        if (!process.isAlive()) {
            throw new IllegalStateException("broker exited early:\n" + logText());
        }
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url() + "/health"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;  // not listening yet
        }
    }

    /** Waits until something accepts TCP connections on {@code port} of this machine (the broker's Kafka listener). */
    public void awaitListening(int port, Duration timeout) throws Exception {
        boolean listening = Await.within(() -> {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        }, timeout);
        if (!listening) {
            throw new IllegalStateException("nothing listening on " + port + " within " + timeout + ":\n" + logText());
        }
    }

    /**
     * A port nothing listens on now, never one this JVM was handed before: the kernel may give a port just closed
     * again, so two ports taken before either is bound (a broker's HTTP port and its embedded PostgreSQL's) could
     * otherwise be the same.
     */
    public static int freePort() throws IOException {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
    }
}
