package io.queen.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL server the tests use: the one named by {@code PG_HOST}/{@code PG_PORT}/{@code PG_USER}/
 * {@code PG_PASSWORD} when set (CI points them at the machine's server), otherwise one embedded real
 * PostgreSQL per test JVM. Never a mock. Each caller gets its own fresh database, so test classes cannot leak
 * into each other. Thread-safe.
 *
 * <p>One class for every module's tests (broker, connector): it lives in the repository's shared test source
 * folder {@code testing/java}, which each module's pom adds to its test sources.
 */
public final class TestPostgres {
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static EmbeddedPostgres embedded;

    private TestPostgres() {
    }

    public record Server(String host, int port, String user, String password) {
        public String jdbcUrl(String database) {
            return "jdbc:postgresql://" + host + ":" + port + "/" + database;
        }
    }

    public static synchronized Server server() {
        String host = System.getenv("PG_HOST");
        if (host != null && !host.isBlank()) {
            return new Server(host, Integer.parseInt(env("PG_PORT", "5432")), env("PG_USER", "postgres"),
                    env("PG_PASSWORD", "postgres"));
        }
        if (embedded == null) {
            // a loaded machine (the whole suite on few cores) can miss one start: retried, each on a fresh
            // directory and port; when it gives up the error carries each attempt's reason
            embedded = startEmbedded(3);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    embedded.close();
                } catch (IOException ignored) {
                    // JVM exit
                }
            }));
        }
        return new Server("127.0.0.1", embedded.getPort(), "postgres", "postgres");
    }

    private static EmbeddedPostgres startEmbedded(int attempts) {
        IllegalStateException failed = new IllegalStateException("embedded PostgreSQL did not start");
        for (int i = 0; i < attempts; i++) {
            try {
                return EmbeddedPostgres.builder().setServerConfig("max_connections", "300").start();
            } catch (IOException | RuntimeException e) {
                failed.addSuppressed(e);
            }
        }
        throw failed;
    }

    /** Creates a new, empty database named after {@code owner} and returns its name. */
    public static String createDatabase(String owner) {
        Server s = server();
        String name = ("qt_" + owner.replaceAll("[^A-Za-z0-9]", "_") + "_" + ProcessHandle.current().pid() + "_"
                + SEQ.incrementAndGet()).toLowerCase(Locale.ROOT);
        if (name.length() > 60) {
            name = name.substring(name.length() - 60);
        }
        try (Connection c = DriverManager.getConnection(s.jdbcUrl("postgres"), s.user(), s.password());
                Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
        }
        return name;
    }

    public static void dropDatabase(String name) {
        Server s = server();
        try (Connection c = DriverManager.getConnection(s.jdbcUrl("postgres"), s.user(), s.password());
                Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            // best effort: a leftover test database is harmless and is named for its owner
        }
    }

    private static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? def : v;
    }
}
