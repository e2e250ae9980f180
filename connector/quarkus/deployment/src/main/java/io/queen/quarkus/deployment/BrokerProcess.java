package io.queen.quarkus.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

import io.quarkus.deployment.builditem.Startable;

/**
 * A Queen broker as a child process: the broker's runnable jar on a free loopback port, with its embedded
 * PostgreSQL ({@code QUEEN_EMBEDDED_PG=true}) on another free port and its data, spool and log in a fresh
 * temporary folder, so every start is empty. {@link #close()} stops it and deletes the folder; a JVM shutdown hook
 * does the same if Quarkus never closes it.
 * <p>
 * Not thread-safe: Quarkus starts and closes a dev service from one thread.
 */
final class BrokerProcess implements Startable {

    private static final Logger LOG = Logger.getLogger(BrokerProcess.class);

    private final Path jar;
    private final Duration startTimeout;
    private Process process;
    private Path dir;
    private String url;
    private Thread shutdownHook;

    BrokerProcess(Path jar, Duration startTimeout) {
        this.jar = jar;
        this.startTimeout = startTimeout;
    }

    @Override
    public void start() {
        try {
            dir = Files.createTempDirectory("queen-devservices");
            int port = freePort();
            ProcessBuilder pb = new ProcessBuilder(javaExecutable(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                    "-jar", jar.toString());
            Map<String, String> env = pb.environment();
            // The broker reads its PostgreSQL from PG_*: drop the caller's so the embedded one is used.
            List.of("PG_HOST", "PG_PORT", "PG_USER", "PG_PASSWORD", "PG_DATABASE", "QUARKUS_DATASOURCE_JDBC_URL")
                    .forEach(env::remove);
            env.put("PORT", Integer.toString(port));
            env.put("HOST", "127.0.0.1");
            env.put("QUEEN_EMBEDDED_PG", "true");
            env.put("QUEEN_EMBEDDED_PG_DIR", dir.resolve("pgdata").toString());
            env.put("QUEEN_EMBEDDED_PG_PORT", Integer.toString(freePort()));
            env.put("QUEEN_SPOOL_DIR", dir.resolve("spool").toString());
            Path log = dir.resolve("broker.log");
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            process = pb.start();
            shutdownHook = new Thread(this::stop, "queen-devservices-stop");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            url = "http://127.0.0.1:" + port;
            awaitHealthy(log);
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException("Dev Services for Queen could not start the broker " + jar, e);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    private void awaitHealthy(Path log) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the Queen broker exited at start:\n" + tail(log));
            }
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url + "/health"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(100);
        }
        throw new IllegalStateException("the Queen broker did not answer /health within " + startTimeout + ":\n"
                + tail(log));
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    @Override
    public String getConnectionInfo() {
        return url;
    }

    @Override
    public String getContainerId() {
        return null;
    }

    /** The broker's process id, for logs. */
    long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public void close() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook runs stop() itself
            }
        }
        stop();
    }

    private synchronized void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                LOG.debugf("could not delete %s: %s", dir, e);
            }
            dir = null;
        }
    }

    private static String javaExecutable() {
        // The JVM running the build is a JDK >= 21 (Quarkus needs it), as the broker does.
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
