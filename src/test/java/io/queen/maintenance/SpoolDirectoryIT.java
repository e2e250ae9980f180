package io.queen.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Brokers on one host and their push spools: two brokers on their defaults (another port each) both start, each
 * on a spool of its own; a broker given a directory another broker holds refuses to start and says which broker
 * holds it and what to set.
 */
class SpoolDirectoryIT {
    @Test
    void defaultSpoolsArePerPortAndASharedDirectoryIsRefusedClearly() throws Exception {
        TestPostgres.Server pg = TestPostgres.server();
        String db = TestPostgres.createDatabase("spooldir");
        Path home = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "spool-home-");
        Map<String, String> defaults = new HashMap<>();
        defaults.put("QUEEN_SPOOL_DIR", null);
        // the default spool is under the user's home: this test's own
        defaults.put("JAVA_TOOL_OPTIONS", "-Duser.home=" + home);
        try (BrokerProcess a = BrokerProcess.start("spool-a", pg, db, defaults);
                BrokerProcess b = BrokerProcess.start("spool-b", pg, db, defaults)) {
            Path spoolA = home.resolve(".queen/spool/" + a.port());
            Path spoolB = home.resolve(".queen/spool/" + b.port());
            assertTrue(Files.exists(spoolA.resolve("spool.lock")), spoolA + " in use by the first broker");
            assertTrue(Files.exists(spoolB.resolve("spool.lock")), spoolB + " in use by the second broker");
            assertTrue(Files.readString(spoolA.resolve("spool.lock")).contains("pid " + a.pid()));

            try (BrokerProcess c = BrokerProcess.launch("spool-c", pg, db,
                    Map.of("QUEEN_SPOOL_DIR", spoolA.toString()))) {
                Integer exit = c.exitCode(Duration.ofSeconds(120));
                assertNotNull(exit, "a broker on a held spool directory does not start:\n" + c.logText());
                assertNotEquals(0, exit);
                String log = c.logText();
                assertTrue(log.contains("push spool " + spoolA + " is in use by another broker (pid " + a.pid()
                        + ", port " + a.port()), log);
                assertTrue(log.contains("QUEEN_SPOOL_DIR"), log);
            }
            // the refused broker changed nothing: the first one still holds its spool and serves
            assertTrue(a.alive());
            a.awaitHealthy(Duration.ofSeconds(10));
            assertEquals(200, io.queen.testing.Http.get(b.url(), "/health").status());
        } finally {
            TestPostgres.dropDatabase(db);
        }
    }
}
