package io.queen.examples.billing;

import java.io.File;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A real Queen broker for the tests: the repository's broker jar ({@code queen.broker.jar}) as a child process on
 * a free port, with its embedded PostgreSQL in a fresh temporary directory, so each run starts empty. Sets the
 * connector-wide {@code url} of the application to it. Not thread-safe (Quarkus calls start and stop once).
 */
public class QueenBrokerResource implements QuarkusTestResourceLifecycleManager {

    private Process process;
    private Path dir;

    @Override
    public Map<String, String> start() {
        String jar = System.getProperty("queen.broker.jar", "../../target/quarkus-app/quarkus-run.jar");
        if (!new File(jar).isFile()) {
            throw new IllegalStateException("broker jar " + new File(jar).getAbsolutePath()
                    + " is missing: build the broker first (./mvnw -B package -DskipTests at the repository root)");
        }
        try {
            dir = Files.createTempDirectory("queen-example-broker");
            int port = freePort();
            ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-jar", jar);
            Map<String, String> env = pb.environment();
            env.put("PORT", Integer.toString(port));
            env.put("HOST", "127.0.0.1");
            env.put("QUEEN_EMBEDDED_PG", "true");
            env.put("QUEEN_EMBEDDED_PG_DIR", dir.resolve("pgdata").toString());
            env.put("QUEEN_EMBEDDED_PG_PORT", Integer.toString(freePort()));
            env.put("QUEEN_SPOOL_DIR", dir.resolve("spool").toString());
            env.remove("PG_HOST");
            Path log = Path.of("target", "broker.log");
            Files.createDirectories(log.getParent());
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            process = pb.start();
            String url = "http://127.0.0.1:" + port;
            awaitHealthy(url, log);
            return Map.of("mp.messaging.connector.smallrye-queen.url", url);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the broker", e);
        }
    }

    private void awaitHealthy(String url, Path log) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited at start:\n" + Files.readString(log));
            }
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("the broker did not answer /health within 120 s:\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a leftover temporary directory is harmless
            }
        }
    }
}
