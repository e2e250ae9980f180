package io.queen.lease;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * How a pop's transaction commits (db/006_log_pop.sql, log_pop_lease_commit_v1): one that wrote nothing but leases
 * does not wait for its WAL flush; one that seeded a group's cursor, moved one (auto-ack), or runs inside a caller's
 * transaction commits as the server is configured. Read in the pop's own transaction, before it commits.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LeaseCommitTest {
    @Inject
    AgroalDataSource ds;

    /** A group that consumed once has its cursor: its next claim writes only a lease. */
    private static void consumedOnce(String queue, String partition, String group) {
        pushN(queue, partition, "first-" + group, 0, 1);
        ackAll(pop("/api/v1/pop/queue/" + queue + "/partition/" + partition + "?batch=1&consumerGroup=" + group
                + "&subscriptionMode=all"), "completed", group);
    }

    @Test
    void aLeaseOnlyClaimDoesNotWaitForTheFlushAndEverythingElseDoes() throws Exception {
        consumedOnce("lc", "P1", "g");
        pushN("lc", "P1", "more", 0, 3);
        pushN("lc", "P2", "other", 0, 3);
        String configured = configured();
        assertEquals("off", claimPartition("lc", "P1", "g", false, true), "a lease-only claim");
        assertEquals(configured, claimPartition("lc", "P1", "g", false, false), "in a caller's transaction");
        assertEquals(configured, claimPartition("lc", "P1", "g", true, true), "auto-ack moves the cursor");
        assertEquals(configured, claimPartition("lc", "P2", "g", false, true), "the group's first contact with P2");
        assertEquals(configured, claimPartition("lc", "P1", "fresh", false, true), "a new group's first contact");
        // one queue-level pop claiming P1 (lease only) and P2 (first contact): the seed makes it durable
        assertEquals(configured, claimQueue("lc", "g", 2));
        consumedOnce("lc", "P2", "g");
        assertEquals("off", claimQueue("lc", "g", 2), "leases on two partitions");
    }

    /** Through HTTP: a lease committed without waiting is a lease like any other (held, then acked). */
    @Test
    void anAsyncLeaseIsHeldAndAcked() {
        consumedOnce("lc-http", "P1", "g");
        pushN("lc-http", "P1", "n", 0, 2);
        var popped = pop("/api/v1/pop/queue/lc-http?batch=10&consumerGroup=g");
        assertEquals(2, messages(popped).size());
        assertEquals(204, Http.get("/api/v1/pop/queue/lc-http?consumerGroup=g").status(), "leased");
        ackAll(popped, "completed", "g");
        pushN("lc-http", "P1", "m", 0, 1);
        assertEquals(1, messages(pop("/api/v1/pop/queue/lc-http?batch=10&consumerGroup=g")).size(),
                "the ack moved the cursor past the leased batch");
    }

    private String configured() throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            assertNotEquals("off", rs.getString(1), "the test needs a server that waits for the flush");
            return rs.getString(1);
        }
    }

    /** The claim runs in a transaction that is rolled back; answers synchronous_commit as it stood at its end. */
    private String claimPartition(String queue, String partition, String group, boolean autoAck, boolean async)
            throws SQLException {
        return inRolledBack("SELECT count(*) FROM queen.log_pop_partition_v1(?, ?, ?, ?, 10, 'w', ?, 'all', NULL, ?)",
                tenantOf(queue), queue, partition, group, autoAck, async);
    }

    private String claimQueue(String queue, String group, int partitions) throws SQLException {
        return inRolledBack("SELECT count(*) FROM queen.log_pop_queue_v1(?, ?, ?, 10, 'w', false, 'all', NULL, ?,"
                + " '-infinity', true)", tenantOf(queue), queue, group, partitions);
    }

    private UUID tenantOf(String queue) {
        return UUID.fromString(Sql.one(ds, "SELECT tenant_id FROM queen.queues WHERE name = '" + queue + "'"));
    }

    private String inRolledBack(String sql, Object... args) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql); Statement st = c.createStatement()) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertTrue(rs.getLong(1) > 0, "the claim took nothing: " + sql);
                }
                try (ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
                    rs.next();
                    return rs.getString(1);
                }
            } finally {
                c.rollback();
            }
        }
    }
}
