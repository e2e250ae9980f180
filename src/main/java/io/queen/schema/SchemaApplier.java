package io.queen.schema;

import io.agroal.api.AgroalDataSource;
import io.queen.config.QueenConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Applies {@code db/*.sql} (in {@code db/manifest.txt} order) at every boot, before the broker serves.
 *
 * <p>Every file is idempotent, so a boot against an existing database changes nothing but function bodies.
 * Several brokers may boot at once: a session advisory lock (737000) serializes them. An ordinary file runs as
 * one transaction with a 2 s {@code lock_timeout}, retried with jitter (a hot table must not be stalled behind
 * a DDL lock queue, and the DDL must not fail on one busy moment). A {@code *.concurrent.sql} file runs one
 * statement at a time in autocommit with no lock timeout ({@code CREATE INDEX CONCURRENTLY} cannot run inside
 * a transaction); an INVALID index left by an interrupted concurrent build is dropped and rebuilt.
 *
 * <p>A database that cannot be reached at boot (refused, unknown host, wrong password or database, too many
 * connections) does not stop the broker: it logs one line per attempt naming the server and user it tried and why,
 * retries with back-off ({@link #RETRY_FIRST_MS} doubling to {@link #RETRY_MAX_MS}), and stays unready meanwhile
 * ({@link #ready()}: readiness 503, API routes 503 through {@link SchemaGate}). Any other failure (a broken SQL
 * file) still fails the boot. The first attempt runs on the boot thread, so a reachable database is ready before
 * the broker serves; the retries run on one daemon thread. Thread-safety: {@code ready} and {@code waiting} are
 * volatile, written by that one thread.
 */
@Singleton
public class SchemaApplier {
    private static final Logger LOG = Logger.getLogger(SchemaApplier.class);
    static final long APPLY_LOCK = 737000L;
    private static final int MAX_ATTEMPTS = 90;
    private static final Pattern INDEX_NAME =
            Pattern.compile("(?i)CREATE\\s+(?:UNIQUE\\s+)?INDEX\\s+CONCURRENTLY\\s+IF\\s+NOT\\s+EXISTS\\s+(\\w+)");

    static final long RETRY_FIRST_MS = 500;
    static final long RETRY_MAX_MS = 15_000;

    private final AgroalDataSource dataSource;
    private final QueenConfig config;
    private final String target;
    private volatile boolean ready;
    private volatile String waiting = "starting";
    private volatile boolean stopped;
    private final CompletableFuture<Void> readyFuture = new CompletableFuture<>();

    SchemaApplier(AgroalDataSource dataSource, QueenConfig config,
            @ConfigProperty(name = "quarkus.datasource.jdbc.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username", defaultValue = "postgres") String user) {
        this.dataSource = dataSource;
        this.config = config;
        int q = url.indexOf('?');
        // the query string may carry a password: the log names the servers, the database and the user only
        this.target = (q < 0 ? url : url.substring(0, q)).replaceFirst("^jdbc:postgresql://", "") + " as " + user;
    }

    /** True once the schema is applied (or its application is switched off): the broker may serve. */
    public boolean ready() {
        return ready;
    }

    /**
     * Completes when the schema is applied: at once (on the caller's thread) when it already is, else on the retry
     * thread. What needs the database from its start (the Kafka listener, the broker's registrations) starts here.
     */
    public CompletionStage<Void> whenReady() {
        return readyFuture;
    }

    /** Why the broker is not ready yet, for answers and probes (names the server, never a password). */
    public String waitingFor() {
        return waiting;
    }

    void onStart(@Observes @Priority(1) StartupEvent event) {
        if (!config.applySchema()) {
            LOG.info("schema apply skipped (QUEEN_APPLY_SCHEMA=false)");
            ready = true;
            readyFuture.complete(null);
            return;
        }
        if (attempt(1, RETRY_FIRST_MS)) {
            return;
        }
        Thread.ofPlatform().daemon().name("queen-schema-retry").start(() -> {
            long backoff = RETRY_FIRST_MS;
            for (int n = 2; !stopped; n++) {
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(backoff * 2, RETRY_MAX_MS);
                if (attempt(n, backoff)) {
                    return;
                }
            }
        });
    }

    void onStop(@Observes ShutdownEvent event) {
        stopped = true;
    }

    /** One try at reaching the database and applying the schema; false when it could not be reached. */
    private boolean attempt(int n, long nextMs) {
        long t0 = System.nanoTime();
        try {
            apply();
        } catch (SQLException e) {
            if (!unreachable(e)) {
                throw new IllegalStateException("schema apply failed: " + e.getMessage(), e);
            }
            waiting = "PostgreSQL " + target + " not reachable: " + reason(e);
            LOG.warnf("%s (attempt %d; next in %d ms)", waiting, n, nextMs);
            return false;
        }
        ready = true;
        waiting = "";
        LOG.infof("schema applied in %d ms%s", (System.nanoTime() - t0) / 1_000_000,
                n > 1 ? " (PostgreSQL " + target + " reached at attempt " + n + ")" : "");
        readyFuture.complete(null);
        return true;
    }

    /**
     * Failures that are about reaching the server or being let in, not about the SQL: connection (08), wrong
     * password or role (28), no such database (3D000), server starting or shutting down (57P0x), too many
     * connections (53300); an I/O cause anywhere in the chain counts too.
     */
    public static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String st = s.getSQLState();
                if (st.startsWith("08") || st.startsWith("28") || st.equals("3D000") || st.startsWith("57P0")
                        || st.equals("53300")) {
                    return true;
                }
            }
            if (t instanceof java.io.IOException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The messages of the cause chain, without repeats: "Connection to h:5432 refused ... (Connection refused)". */
    static String reason(Throwable e) {
        StringBuilder out = new StringBuilder();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Throwable t = e; t != null && seen.size() < 5; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().strip();
            if (seen.add(m) && out.indexOf(m) < 0) {
                out.append(out.length() == 0 ? m : " (" + m + ")");
            }
        }
        return out.toString();
    }

    public void apply() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_lock(" + APPLY_LOCK + ")");
            }
            try {
                for (String file : manifest()) {
                    String sql = resource("db/" + file);
                    if (file.endsWith(".concurrent.sql")) {
                        applyConcurrent(c, file, sql);
                    } else {
                        applyTransactional(c, file, sql);
                    }
                }
            } finally {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_advisory_unlock(" + APPLY_LOCK + ")");
                }
            }
        }
    }

    private void applyTransactional(Connection c, String file, String sql) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '2s'");
                s.execute(sql);
                c.commit();
                return;
            } catch (SQLException e) {
                c.rollback();
                // 55P03 lock_not_available: someone holds a conflicting lock; back off and retry.
                if (!"55P03".equals(e.getSQLState()) || attempt >= MAX_ATTEMPTS) {
                    throw new SQLException(file + ": " + e.getMessage(), e.getSQLState(), e);
                }
                LOG.warnf("%s: lock timeout (attempt %d), retrying", file, attempt);
                sleep(500 + ThreadLocalRandom.current().nextInt(1500));
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private void applyConcurrent(Connection c, String file, String sql) throws SQLException {
        for (String statement : splitStatements(sql)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET lock_timeout = 0");
                Matcher m = INDEX_NAME.matcher(statement);
                if (m.find()) {
                    dropIfInvalid(s, m.group(1));
                }
                s.execute(statement);
            } catch (SQLException e) {
                throw new SQLException(file + ": " + e.getMessage(), e.getSQLState(), e);
            }
        }
    }

    private static void dropIfInvalid(Statement s, String indexName) throws SQLException {
        try (var rs = s.executeQuery("SELECT NOT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'queen' AND c.relname = '"
                + indexName + "'")) {
            if (rs.next() && rs.getBoolean(1)) {
                LOG.warnf("dropping invalid index queen.%s left by an interrupted build", indexName);
                s.execute("DROP INDEX CONCURRENTLY IF EXISTS queen." + indexName);
            }
        }
    }

    /** Splits a file of simple statements on lines ending with ';' (no dollar quoting allowed there). */
    static List<String> splitStatements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : sql.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            cur.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                out.add(cur.toString());
                cur.setLength(0);
            }
        }
        if (!cur.toString().isBlank()) {
            out.add(cur.toString());
        }
        return out;
    }

    static List<String> manifest() {
        return resource("db/manifest.txt").lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }

    static String resource(String path) {
        try (InputStream in = SchemaApplier.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while applying the schema", e);
        }
    }
}
