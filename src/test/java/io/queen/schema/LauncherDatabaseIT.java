package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged broker with no PostgreSQL configured (no PG_HOST, PG_HOSTS or QUEEN_JDBC_URL: what {@code ./queen run}
 * does on a workstation) uses a database of its own, created when missing, on the server answering on 127.0.0.1
 * (else on the embedded PostgreSQL it starts), never the server's {@code postgres} database; its first output line
 * names the server and the database.
 */
class LauncherDatabaseIT {

    /** The broker's environment with no server configured: {@code extra} on top, the test server's PG_* removed. */
    private static Map<String, String> unconfigured(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>();
        for (String name : new String[] {"PG_HOST", "PG_HOSTS", "QUEEN_JDBC_URL", "QUARKUS_DATASOURCE_JDBC_URL",
            "PG_DATABASE", "PG_PORT", "PG_USER", "PG_PASSWORD", "QUEEN_EMBEDDED_PG"}) {
            env.put(name, null);
        }
        env.putAll(extra);
        return env;
    }

    @Test
    void aServerAnsweringOnLoopbackGetsADatabaseOfItsOwnCreatedWhenMissing() throws Exception {
        TestPostgres.Server pg = TestPostgres.server();
        String own = "qt_launcher_" + ProcessHandle.current().pid() + "_" + (System.nanoTime() % 100_000);
        int port = BrokerProcess.freePort();
        // the test server "answers on 127.0.0.1:PG_PORT" through a forwarder, wherever it runs
        try (DatabaseStartupIT.Forwarder f = new DatabaseStartupIT.Forwarder(port, pg.host(), pg.port());
                BrokerProcess broker = BrokerProcess.launch("launcher-local", pg, own, unconfigured(Map.of(
                        "PG_PORT", String.valueOf(port), "PG_USER", pg.user(), "PG_PASSWORD", pg.password(),
                        "PG_DATABASE", own)))) {
            broker.awaitHealthy(Duration.ofSeconds(90));
            String first = firstLine(broker);
            assertEquals("queen: PostgreSQL 127.0.0.1:" + port + " (answering there; no PG_HOST, PG_HOSTS or"
                    + " QUEEN_JDBC_URL set), database " + own + " as " + pg.user() + " (created)", first);
            assertTrue(hasQueenSchema(pg.jdbcUrl(own), pg.user(), pg.password()), "the schema is in " + own);
        } finally {
            TestPostgres.dropDatabase(own);
        }
    }

    @Test
    void onAFreshMachineTheEmbeddedServerGetsTheDatabaseQueen(@TempDir Path dir) throws Exception {
        int pgPort = BrokerProcess.freePort();
        try (BrokerProcess broker = BrokerProcess.launch("launcher-embedded", TestPostgres.server(), "unused",
                unconfigured(Map.of("PG_PORT", String.valueOf(BrokerProcess.freePort()),
                        "QUEEN_EMBEDDED_PG_DIR", dir.resolve("pgdata").toString(),
                        "QUEEN_EMBEDDED_PG_PORT", String.valueOf(pgPort))))) {
            broker.awaitHealthy(Duration.ofSeconds(120));
            String first = firstLine(broker);
            assertTrue(first.startsWith("queen: no PostgreSQL configured or listening on 127.0.0.1; started embedded"
                    + " PostgreSQL on port " + pgPort), first);
            assertTrue(first.endsWith(", database queen (created)"), first);
            String server = "jdbc:postgresql://127.0.0.1:" + pgPort + "/";
            assertTrue(hasQueenSchema(server + "queen", "postgres", "postgres"), "the schema is in queen");
            assertFalse(hasQueenSchema(server + "postgres", "postgres", "postgres"), "nothing in postgres");
        }
    }

    /** The launcher's line: the first "queen: " line, among the first lines the process wrote. */
    private static String firstLine(BrokerProcess broker) throws java.io.IOException {
        return broker.logText().lines().limit(5).filter(l -> l.startsWith("queen: ")).findFirst()
                .orElse(broker.logText());
    }

    private static boolean hasQueenSchema(String url, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = 'queen'")) {
            rs.next();
            return rs.getInt(1) == 1;
        }
    }
}
