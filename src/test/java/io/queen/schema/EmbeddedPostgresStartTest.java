package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Starting the embedded PostgreSQL (the broker's fallback and the tests' server): a failed start is retried, and
 * the error after the last attempt says why each failed, with the server's own words. A start is made to fail by a
 * setting the server refuses.
 */
class EmbeddedPostgresStartTest {
    static EmbeddedPostgres.Builder refused() {
        return EmbeddedPostgres.builder().setServerConfig("queen_no_such_setting", "1");
    }

    @Test
    void aFailedStartIsRetried() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Path log = Files.createTempFile(Path.of("target").toAbsolutePath(), "embedded-pg-retry-", ".log");
        try (EmbeddedPostgres pg = EmbeddedPostgresLauncher.start(
                () -> calls.incrementAndGet() == 1 ? refused() : EmbeddedPostgres.builder(), log, 3,
                Duration.ofSeconds(5), null);
                Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            assertEquals(2, calls.get(), "the second attempt started it");
        }
    }

    @Test
    void givingUpSaysWhyEachAttemptFailed() throws Exception {
        Path log = Files.createTempFile(Path.of("target").toAbsolutePath(), "embedded-pg-refused-", ".log");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> EmbeddedPostgresLauncher.start(EmbeddedPostgresStartTest::refused, log, 2,
                        Duration.ofSeconds(3), null));
        String m = e.getMessage();
        assertTrue(m.startsWith("embedded PostgreSQL failed to start (2 attempts, each waiting up to 3 s; its log: "
                + log + "): attempt 1: "), m);
        assertTrue(m.contains("; attempt 2: "), m);
        // the library's reason and the server's
        assertTrue(m.contains("Gave up waiting for server to start after 3000ms"), m);
        assertTrue(m.contains("unrecognized configuration parameter \"queen_no_such_setting\""), m);
    }
}
