package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A database that stops accepting writes (what a broker meets on a standby in the middle of a failover, or with
 * {@code default_transaction_read_only} switched on): pushes answer 503 with Retry-After naming the reason, never a
 * 500 or a silently dropped message, nothing is half-written, and pushes succeed again once writes come back.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ReadOnlyDatabaseTest {
    @Inject
    AgroalDataSource ds;

    static Http.Reply push(String txn) {
        return Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"ro\",\"partition\":\"p\",\"transactionId\":\"" + txn
                + "\",\"payload\":{\"t\":\"" + txn + "\"}}]}");
    }

    /** Sets the database's default and closes every other session, so the broker's pool reconnects under it. */
    void readOnly(boolean on) throws Exception {
        // a session of its own, outside the broker's pool: its SET below must not go back into the pool
        String url = ds.getConfiguration().connectionPoolConfiguration().connectionFactoryConfiguration().jdbcUrl();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url,
                System.getenv().getOrDefault("PG_USER", "postgres"), System.getenv().getOrDefault("PG_PASSWORD", "postgres"));
                java.sql.Statement st = c.createStatement()) {
            // a session of a read-only database starts read-only: switch this one back first, in its own statement
            st.execute("SET default_transaction_read_only = off");
            st.execute("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I " + (on ? "SET default_transaction_read_only = on"
                    : "RESET default_transaction_read_only") + "', current_database()); END $$");
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND pid <> pg_backend_pid()");
            // termination is a signal: wait until those sessions are gone
            Await.within(() -> {
                try (java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname ="
                        + " current_database() AND pid <> pg_backend_pid() AND backend_start < now()")) {
                    rs.next();
                    return rs.getLong(1) == 0;
                }
            }, Duration.ofSeconds(5));
        }
    }

    long stored() {
        return Sql.count(ds, "SELECT COALESCE(sum(last_offset - log_start + 1), 0) FROM queen.log_partitions");
    }

    @Test
    void writesRefusedByTheDatabaseAre503NamingTheReasonAndNothingIsWritten() throws Exception {
        assertEquals(201, push("before").status());
        assertEquals(1, stored());
        readOnly(true);
        try {
            AtomicInteger tries = new AtomicInteger();
            boolean named = Await.within(() -> {
                Http.Reply r = push("during-" + tries.getAndIncrement());
                // the first tries may meet a pooled connection the database closed: 503 "unavailable" too
                assertEquals(503, r.status(), r.body());
                assertFalse(r.body().contains("ERROR:") || r.body().contains("read-only transaction"),
                        "no driver text: " + r.body());
                return r.body().contains(Failures.READ_ONLY);
            }, Duration.ofSeconds(4));
            assertTrue(named, "a push on a read-only database names the reason");
            assertEquals(1, stored(), "nothing half-written");
        } finally {
            readOnly(false);
        }
        Http.Reply after = Await.value("a push stored once the database is writable again", () -> {
            Http.Reply r = push("after");
            assertTrue(r.status() == 201 || r.status() == 503, r.status() + " " + r.body());
            return r.status() == 201 ? r : null;
        }, Duration.ofSeconds(4));
        assertEquals(201, after.status(), after.body());
        assertEquals(2, stored(), "writes back: the retried push is stored once");
    }
}
