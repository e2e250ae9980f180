package io.queen.ack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@code /transaction} acking in several consumer groups takes its cursor rows in (partition_id, group) order,
 * the order ack fusion and queue delete use. Observed directly: the test holds the cursor row that comes second in
 * that order; while the transaction waits for it, the row that comes first must already be locked by it.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TransactionLockOrderTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void cursorRowsOfSeveralGroupsAreLockedInPartitionThenGroupOrder() throws Exception {
        Api.pushN("txlock", "a", "a", 0, 1);
        Api.pushN("txlock", "b", "b", 0, 1);
        String low = Sql.one(ds, "SELECT min(p.id::text) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'txlock'");
        String high = Sql.one(ds, "SELECT max(p.id::text) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'txlock'");
        String lowName = Sql.one(ds, "SELECT name FROM queen.log_partitions WHERE id = '" + low + "'");
        String highName = Sql.one(ds, "SELECT name FROM queen.log_partitions WHERE id = '" + high + "'");
        // g1 acks on the HIGH partition, g2 on the LOW one: group order and partition order disagree
        JsonNode g1 = Api.messages(Api.pop("/api/v1/pop/queue/txlock/partition/" + highName
                + "?wait=false&consumerGroup=g1")).get(0);
        JsonNode g2 = Api.messages(Api.pop("/api/v1/pop/queue/txlock/partition/" + lowName
                + "?wait=false&consumerGroup=g2")).get(0);

        ArrayNode ops = Api.M.createArrayNode();
        for (Object[] a : new Object[][] {{g1, "g1"}, {g2, "g2"}}) {
            JsonNode m = (JsonNode) a[0];
            ObjectNode op = ops.addObject();
            op.put("type", "ack").put("transactionId", m.get("transactionId").asText())
                    .put("partitionId", m.get("partitionId").asText()).put("consumerGroup", (String) a[1])
                    .put("status", "completed");
        }
        ObjectNode body = Api.M.createObjectNode();
        body.set("operations", ops);

        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            lock(holder, high, "g1", false);   // second in (partition_id, group) order
            CompletableFuture<Http.Reply> tx = CompletableFuture.supplyAsync(
                    () -> Http.post("/api/v1/transaction", body.toString()));
            awaitLockWait();
            try (Connection probe = ds.getConnection()) {
                probe.setAutoCommit(false);
                // first in order: the transaction must hold it already while it waits for the second
                SQLException e = assertThrows(SQLException.class, () -> lock(probe, low, "g2", true));
                assertEquals("55P03", e.getSQLState(), e.getMessage());
                probe.rollback();
            }
            holder.rollback();
            Http.Reply r = tx.get(30, TimeUnit.SECONDS);
            assertEquals(200, r.status(), r.body());
            assertTrue(Api.json(r.body()).get("success").asBoolean(), r.body());
        }
        assertEquals(0, Sql.count(ds, "SELECT min(committed) FROM queen.log_consumers WHERE consumer_group IN ('g1', 'g2')"));
    }

    private static void lock(Connection c, String pid, String group, boolean nowait) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM queen.log_consumers WHERE partition_id = ?::uuid"
                + " AND consumer_group = ? FOR UPDATE" + (nowait ? " NOWAIT" : ""))) {
            ps.setString(1, pid);
            ps.setString(2, group);
            ps.executeQuery().close();
        }
    }

    /** Until some other backend of this database waits for a row lock (the transaction reached the held row). */
    private void awaitLockWait() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (Sql.count(ds, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'") > 0) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("the transaction never waited for the held cursor row");
    }
}
