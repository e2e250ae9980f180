package io.queen.connector.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL server behind the test brokers: the one named by {@code PG_HOST}/{@code PG_PORT}/{@code PG_USER}/
 * {@code PG_PASSWORD} when set, otherwise one embedded PostgreSQL per test JVM. Each test class gets a fresh
 * database (created over JDBC, dropped after). Thread-safe (synchronized start).
 */
public final class TestPostgres {
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static EmbeddedPostgres embedded;

    private TestPostgres() {
    }

    public record Server(String host, int port, String user, String password) {
        String jdbcUrl(String database) {
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
            try {
                embedded = EmbeddedPostgres.builder().setServerConfig("max_connections", "200").start();
            } catch (IOException e) {
                throw new UncheckedIOException("embedded PostgreSQL failed to start", e);
            }
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

    public static String createDatabase(String owner) {
        Server s = server();
        String name = ("qc_" + owner.replaceAll("[^A-Za-z0-9]", "_") + "_" + ProcessHandle.current().pid() + "_"
                + SEQ.incrementAndGet()).toLowerCase(Locale.ROOT);
        if (name.length() > 60) {
            name = name.substring(name.length() - 60);
        }
        exec(s, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        exec(s, "CREATE DATABASE " + name);
        return name;
    }

    public static void dropDatabase(String name) {
        try {
            exec(server(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (IllegalStateException e) {
            // best effort: a leftover test database is harmless and named after its owner
        }
    }

    private static void exec(Server s, String sql) {
        try (Connection c = DriverManager.getConnection(s.jdbcUrl("postgres"), s.user(), s.password());
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? def : v;
    }
}
