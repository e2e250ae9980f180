package io.queen.ack;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** Transactions through HTTP: pushes and acks of one transaction commit together or not at all. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TransactionTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void transactionsAreAllOrNothing() {
        pushN("tx-src", "Default", "src", 0, 2);
        JsonNode p = pop("/api/v1/pop/queue/tx-src/partition/Default?batch=1");
        JsonNode m = p.get("messages").get(0);
        String pid = m.get("partitionId").asText();
        String bad = "{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\"tx-dst\",\"payload\":{\"v\":1}}]},"
                + "{\"type\":\"ack\",\"transactionId\":\"src-0\",\"partitionId\":\"" + pid + "\"},"
                + "{\"type\":\"ack\",\"transactionId\":\"no-such\",\"partitionId\":\"" + pid + "\"}]}";
        Http.Reply r = Http.post("/api/v1/transaction", bad);
        assertEquals(200, r.status());
        JsonNode res = Api.json(r.body());
        assertFalse(res.get("success").asBoolean());
        assertTrue(res.get("error").asText().contains("Message not found"), res.toString());
        assertNull(pop("/api/v1/pop/queue/tx-dst/partition/Default"), "the push rolled back");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions lp"
                + " ON lp.id = s.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'tx-dst'"));
        assertEquals(-1, Sql.count(ds, "SELECT committed FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'tx-src'"),
                "the ack rolled back");

        String good = "{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\"tx-dst\",\"payload\":{\"v\":1}}]},"
                + "{\"type\":\"ack\",\"transactionId\":\"src-0\",\"partitionId\":\"" + pid + "\"}],\"requiredLeases\":[]}";
        JsonNode ok = Api.json(Http.post("/api/v1/transaction", good).body());
        assertTrue(ok.get("success").asBoolean(), ok.toString());
        assertEquals("push", ok.get("results").get(0).get("type").asText());
        assertEquals(1, pop("/api/v1/pop/queue/tx-dst/partition/Default").get("messages").get(0).get("data").get("v").asInt());
        assertEquals(0, Sql.count(ds, "SELECT committed FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'tx-src'"));

        assertEquals(400, Http.post("/api/v1/transaction", "{\"operations\":[]}").status());
        assertEquals(400, Http.post("/api/v1/transaction", "{}").status());
        JsonNode unknown = Api.json(Http.post("/api/v1/transaction",
                "{\"operations\":[{\"type\":\"frobnicate\"}]}").body());
        assertFalse(unknown.get("success").asBoolean());
        assertEquals("Unknown operation type: frobnicate", unknown.get("error").asText());
    }
}
