package io.queen.schema;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Fallback PostgreSQL for a machine that has none: a real PostgreSQL 17 (zonky binaries) started before Quarkus
 * boots, with its data directory kept between runs ({@code QUEEN_EMBEDDED_PG_DIR}, default
 * {@code ~/.queen/pgdata}).
 *
 * <p>Decision ({@code QUEEN_EMBEDDED_PG} = {@code auto} | {@code true} | {@code false}, default auto): a
 * configured server always wins; in auto mode a server answering on 127.0.0.1:{@code PG_PORT|5432} is used
 * as-is; only when nothing answers is the embedded server started. The server's output goes to a log next to
 * its data directory ({@code ~/.queen/pgdata.log}).
 *
 * <p>On a server it found or started itself the broker uses a database of its own, {@code PG_DATABASE} or
 * {@link #DATABASE}, created when missing (never the {@code postgres} database of whatever server answers), and its
 * first output line names the server and the database. Thread-safe ({@link #startIfNeeded} is synchronized; it is
 * called once from main).
 */
public final class EmbeddedPostgresLauncher {
    /** How long one start waits for the server to accept connections. */
    static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
    /** The database the broker uses on a server it found or started (unless {@code PG_DATABASE} names another). */
    static final String DATABASE = "queen";
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
                String database = env("PG_DATABASE", DATABASE);
                String user = env("PG_USER", "postgres");
                String created = ensureDatabase("jdbc:postgresql://127.0.0.1:" + port + "/", user,
                        env("PG_PASSWORD", "postgres"), database);
                // PG_DATABASE as a system property: application.properties builds the URL from it
                System.setProperty("PG_DATABASE", database);
                System.out.println("queen: PostgreSQL 127.0.0.1:" + port + " (answering there; no PG_HOST, PG_HOSTS"
                        + " or QUEEN_JDBC_URL set), database " + database + " as " + user + created);
                return;
            }
        }
        Path dir = Path.of(env("QUEEN_EMBEDDED_PG_DIR",
                Path.of(System.getProperty("user.home"), ".queen", "pgdata").toString()));
        int port = Integer.parseInt(env("QUEEN_EMBEDDED_PG_PORT", "54329"));
        Path log = dir.resolveSibling(dir.getFileName() + ".log");
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(log);   // this run's server output only
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL: cannot use " + dir, e);
        }
        // one attempt: the data directory is this broker's, and a failed attempt keeps it locked in this JVM
        running = start(() -> EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false)
                .setPort(port).setServerConfig("max_connections", "200"), log, 1, STARTUP_WAIT, dir);
        String database = env("PG_DATABASE", DATABASE);
        String created = ensureDatabase("jdbc:postgresql://127.0.0.1:" + port + "/", "postgres", "postgres",
                database);
        System.setProperty("quarkus.datasource.jdbc.url", running.getJdbcUrl("postgres", database));
        System.setProperty("quarkus.datasource.username", "postgres");
        System.setProperty("quarkus.datasource.password", "postgres");
        System.out.println("queen: " + (mode.equals("true") ? "QUEEN_EMBEDDED_PG=true"
                : "no PostgreSQL configured or listening on 127.0.0.1") + "; started embedded PostgreSQL on port "
                + port + " with data in " + dir + " (its log: " + log + "), database " + database + created);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                running.close();
            } catch (IOException ignored) {
                // the process is exiting; PostgreSQL recovers from its WAL on the next start
            }
        }, "embedded-pg-stop"));
    }

    /**
     * Starts an embedded PostgreSQL from a fresh {@code builder} per attempt, waiting up to {@code wait} for each
     * (a loaded machine can take far longer than the library's default 10 s), at most {@code attempts} times. The
     * server's output goes to {@code log}. A server of a failed attempt still running on {@code dataDir} is stopped
     * before the next. When it gives up, the error says why: each attempt's failure and the log's last lines.
     */
    public static EmbeddedPostgres start(Supplier<EmbeddedPostgres.Builder> builder, Path log, int attempts,
            Duration wait, Path dataDir) {
        List<String> failures = new ArrayList<>();
        for (int attempt = 1; attempt <= attempts; attempt++) {
            long logStart = size(log);
            try {
                return builder.get().setPGStartupWait(wait).setOutputRedirector(ProcessBuilder.Redirect.appendTo(
                        log.toFile())).setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            } catch (IOException | RuntimeException e) {
                failures.add("attempt " + attempt + ": " + causes(e) + tail(log, logStart));
                stopLeftover(dataDir);
            }
            if (attempt < attempts) {
                try {
                    Thread.sleep(1000L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        throw new IllegalStateException("embedded PostgreSQL failed to start (" + failures.size() + " attempt"
                + (failures.size() == 1 ? "" : "s") + ", each waiting up to " + wait.toSeconds() + " s; its log: "
                + log + "): " + String.join("; ", failures));
    }

    /** The messages of an exception and its causes: "gave up waiting ...: connect failed: Connection refused". */
    static String causes(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null && b.length() < 1000; t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (b.indexOf(m) < 0) {
                b.append(b.isEmpty() ? "" : ": ").append(m);
            }
        }
        return b.toString();
    }

    /** The last lines the server wrote to {@code log} since {@code from}, as " (server: ... | ...)", or "". */
    private static String tail(Path log, long from) {
        try {
            byte[] all = Files.readAllBytes(log);
            String text = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                    StandardCharsets.UTF_8);
            List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
            String last = String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()))
                    .replaceAll("\\p{Cntrl}", "?");
            return last.isEmpty() ? "" : " (server: " + last + ")";
        } catch (IOException e) {
            return "";
        }
    }

    private static long size(Path log) {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Stops a postmaster a failed attempt left running on {@code dataDir} (it came up after the wait ended, and
     * would hold the directory): the process named in its {@code postmaster.pid}, only if its command line names
     * that directory (a stale pid file may name an unrelated process).
     */
    private static void stopLeftover(Path dataDir) {
        if (dataDir == null) {
            return;
        }
        try {
            Path pidFile = dataDir.resolve("postmaster.pid");
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
            ProcessHandle.of(pid).filter(h -> h.info().commandLine().map(c -> c.contains(dataDir.toString()))
                    .orElse(false)).ifPresent(h -> {
                        h.destroy();   // SIGTERM: PostgreSQL's smart shutdown
                        h.onExit().completeOnTimeout(h, 30, TimeUnit.SECONDS).join();
                    });
        } catch (IOException | RuntimeException e) {
            // nothing to stop, or not ours to stop: the next attempt reports what is in the way
        }
    }

    /**
     * Creates {@code database} on the server at {@code serverUrl} (a JDBC URL ending in '/') unless it exists;
     * answers what to add to the startup line: " (created)", "", or why it could not check (the broker then reports
     * the database unreachable and retries, as for any database).
     */
    static String ensureDatabase(String serverUrl, String user, String password, String database) {
        Properties login = new Properties();
        login.setProperty("user", user);
        login.setProperty("password", password);
        login.setProperty("connectTimeout", "10");
        // the driver itself, not DriverManager: main runs before Quarkus sets up the class loading DriverManager scans
        try (Connection c = new org.postgresql.Driver().connect(serverUrl + "postgres", login)) {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                ps.setString(1, database);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return "";
                    }
                }
            }
            try (Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE \"" + database.replace("\"", "\"\"") + "\"");
            } catch (SQLException e) {
                if (!"42P04".equals(e.getSQLState())) {   // duplicate_database: another broker created it meanwhile
                    throw e;
                }
                return "";
            }
            return " (created)";
        } catch (SQLException e) {
            return " (could not check that it exists: " + causes(e).replaceAll("\\p{Cntrl}", "?") + ")";
        }
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
