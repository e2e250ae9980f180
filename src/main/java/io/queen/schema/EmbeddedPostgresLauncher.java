package io.queen.schema;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Fallback PostgreSQL for a machine that has none: a real PostgreSQL 17 (zonky binaries) started before Quarkus
 * boots, with its data directory kept between runs ({@code QUEEN_EMBEDDED_PG_DIR}, default
 * {@code ~/.queen/pgdata}).
 *
 * <p>Decision ({@code QUEEN_EMBEDDED_PG} = {@code auto} | {@code true} | {@code false}, default auto): a
 * configured server always wins; in auto mode a server answering on 127.0.0.1:{@code PG_PORT|5432} is used
 * as-is; only when nothing answers is the embedded server started. Not thread-safe; called once from main.
 */
public final class EmbeddedPostgresLauncher {
    private static EmbeddedPostgres running;

    private EmbeddedPostgresLauncher() {
    }

    public static synchronized void startIfNeeded() {
        String mode = env("QUEEN_EMBEDDED_PG", "auto").toLowerCase(Locale.ROOT);
        if (mode.equals("false") || running != null) {
            return;
        }
        boolean configured = System.getenv("PG_HOST") != null || System.getenv("PG_HOSTS") != null
                || System.getenv("QUEEN_JDBC_URL") != null
                || System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null
                || System.getProperty("quarkus.datasource.jdbc.url") != null;
        if (!mode.equals("true")) {
            if (configured) {
                return;
            }
            int port = Integer.parseInt(env("PG_PORT", "5432"));
            if (answers("127.0.0.1", port)) {
                return;
            }
        }
        Path dir = Path.of(env("QUEEN_EMBEDDED_PG_DIR",
                Path.of(System.getProperty("user.home"), ".queen", "pgdata").toString()));
        int port = Integer.parseInt(env("QUEEN_EMBEDDED_PG_PORT", "54329"));
        try {
            Files.createDirectories(dir);
            running = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("max_connections", "200")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL failed to start in " + dir, e);
        }
        System.setProperty("quarkus.datasource.jdbc.url", running.getJdbcUrl("postgres", "postgres"));
        System.setProperty("quarkus.datasource.username", "postgres");
        System.setProperty("quarkus.datasource.password", "postgres");
        System.out.println("queen: " + (mode.equals("true") ? "QUEEN_EMBEDDED_PG=true"
                : "no PostgreSQL configured or listening on 127.0.0.1") + "; started embedded PostgreSQL on port "
                + port + " with data in " + dir);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                running.close();
            } catch (IOException ignored) {
                // the process is exiting; PostgreSQL recovers from its WAL on the next start
            }
        }, "embedded-pg-stop"));
    }

    private static boolean answers(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? def : v;
    }
}
