package io.queen.dlq;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Api.pushThenPop;
import static io.queen.testing.Popped.ns;
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
import java.util.List;
import org.junit.jupiter.api.Test;

/** Failed acks through HTTP: the retry budget, dead letters, and acks that cannot succeed. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RetryAndDeadLetterTest {
    @Inject
    AgroalDataSource ds;

    /**
     * Configures {@code queue} with {@code options}, pushes {@code count} messages to its Default partition, pops the
     * first and acks it failed with {@code error}; returns the ack's answer.
     */
    static JsonNode failFirst(String queue, String options, String prefix, int count, String error) {
        configure(queue, options);
        pushN(queue, "Default", prefix, 0, count);
        JsonNode m = pop("/api/v1/pop/queue/" + queue + "/partition/Default?batch=1").get("messages").get(0);
        JsonNode r = ack(m, "failed", null, error);
        assertTrue(r.get("success").asBoolean());
        return r;
    }

    @Test
    void failedAcksSpendTheBudgetThenTheOneMessageIsDeadLetteredAndThePartitionFlows() {
        JsonNode r1 = failFirst("poison", "{\"retryLimit\":1}", "x", 3, "boom 1");
        assertTrue(r1.get("leaseReleased").asBoolean());
        assertFalse(r1.get("dlq").asBoolean());
        JsonNode p2 = pop("/api/v1/pop/queue/poison/partition/Default?batch=1");
        assertEquals(List.of(0), ns(p2), "retried");
        JsonNode r2 = ack(p2.get("messages").get(0), "failed", null, "Test error: boom 2");
        assertTrue(r2.get("dlq").asBoolean(), r2.toString());
        assertEquals(List.of(1, 2), ns(pop("/api/v1/pop/queue/poison/partition/Default?batch=5")),
                "the rest of the partition keeps flowing");
        List<List<Object>> dlq = Sql.rows(ds, "SELECT \"offset\", transaction_id, payload::text, error, retry_count"
                + " FROM queen.log_dlq WHERE transaction_id LIKE 'x-%'");
        assertEquals(1, dlq.size());
        assertEquals(0L, dlq.get(0).get(0));
        assertEquals("x-0", dlq.get(0).get(1));
        assertEquals("{\"n\": 0}", dlq.get(0).get(2));
        assertEquals("Test error: boom 2", dlq.get(0).get(3));
        assertEquals(1, dlq.get(0).get(4));
    }

    @Test
    void deadLetteringNeverSkipsUnprocessedMessagesBeforeThePoison() {
        JsonNode p = pushThenPop("dlqgap", "Default", "g", 3, 3);
        String pid = p.get("partitionId").asText();
        JsonNode r = ack("g-2", pid, p.get("leaseId").asText(), "dlq", null, "bad");
        assertTrue(r.get("success").asBoolean());
        assertFalse(r.get("dlq").asBoolean(), "g-0 and g-1 were never acked: nothing is filed over them");
        JsonNode again = pop("/api/v1/pop/queue/dlqgap/partition/Default?batch=3");
        assertEquals(List.of(0, 1, 2), ns(again), "redelivered from the first unacked message");
        String lease = again.get("leaseId").asText();
        String body = "{\"acknowledgments\":["
                + "{\"transactionId\":\"g-0\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\"},"
                + "{\"transactionId\":\"g-1\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\"},"
                + "{\"transactionId\":\"g-2\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease
                + "\",\"status\":\"dlq\",\"error\":\"bad\"}]}";
        JsonNode res = Api.json(Http.post("/api/v1/ack/batch", body).body());
        assertTrue(res.get(2).get("dlq").asBoolean(), res.toString());
        assertNull(pop("/api/v1/pop/queue/dlqgap/partition/Default?batch=3"));
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE transaction_id = 'g-2'"));
    }

    @Test
    void deadLetteringDisabledDropsThePoisonAndStillMovesOn() {
        JsonNode r = failFirst("nodlq", "{\"retryLimit\":0,\"deadLetterQueue\":false,\"dlqAfterMaxRetries\":false}", "d",
                2, "x");
        assertFalse(r.get("dlq").asBoolean());
        assertEquals(List.of(1), ns(pop("/api/v1/pop/queue/nodlq/partition/Default?batch=5")));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE transaction_id LIKE 'd-%'"));
    }

    @Test
    void anExplicitFailureIsNeverSkippedByALaterSuccessInTheSameCall() {
        JsonNode p = pushThenPop("mixed", "Default", "m", 4, 4);
        String lease = p.get("leaseId").asText();
        String pid = p.get("partitionId").asText();
        String body = "{\"acknowledgments\":["
                + "{\"transactionId\":\"m-0\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\",\"status\":\"completed\"},"
                + "{\"transactionId\":\"m-1\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\",\"status\":\"failed\"},"
                + "{\"transactionId\":\"m-2\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\",\"status\":\"completed\"},"
                + "{\"transactionId\":\"nope\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease + "\"}]}";
        JsonNode r = Api.json(Http.post("/api/v1/ack/batch", body).body());
        assertTrue(r.get(0).get("success").asBoolean());
        assertTrue(r.get(1).get("success").asBoolean());
        assertFalse(r.get(2).get("success").asBoolean(), "a success after the failure is not committed");
        assertFalse(r.get(3).get("success").asBoolean());
        assertEquals("Message not found", r.get(3).get("error").asText());
        assertEquals(List.of(1, 2, 3), ns(pop("/api/v1/pop/queue/mixed/partition/Default?batch=4")));
    }

    @Test
    void staleAndUnknownAcksAreReportedNeverSuccess() {
        pushN("stale", "Default", "st", 0, 2);
        JsonNode p = pop("/api/v1/pop/queue/stale/partition/Default?batch=2");
        String pid = p.get("partitionId").asText();
        ackAll(p, "completed", null);
        JsonNode again = ack("st-0", pid, null, "completed", null, null);
        assertTrue(again.get("success").asBoolean(), "re-acking a committed message is an idempotent success");
        JsonNode staleFail = ack("st-0", pid, null, "failed", null, null);
        assertFalse(staleFail.get("success").asBoolean());
        assertEquals("Message already committed", staleFail.get("error").asText());
        assertEquals("Message not found", ack("ghost", pid, null, null, null, null).get("error").asText());
        assertEquals("Message not found", ack("st-0", "not-a-uuid", null, null, null, null).get("error").asText());
        assertEquals(400, Http.post("/api/v1/ack", "{\"partitionId\":\"" + pid + "\"}").status());
        assertEquals(400, Http.post("/api/v1/ack", "{\"transactionId\":\"x\"}").status());
        assertEquals(400, Http.post("/api/v1/ack/batch", "{\"acknowledgments\":[{\"transactionId\":1}]}").status());
        assertEquals("[]", Http.post("/api/v1/ack/batch", "{\"acknowledgments\":[]}").body());
    }
}
