package io.queen.traces;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.retention.RetentionCycle;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Message traces (API spec 4.6) through HTTP: record, read back three ways, retention, queue delete. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TracesTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;

    static JsonNode popOne(String queue) {
        return Api.messages(Api.pop("/api/v1/pop/queue/" + queue + "/partition/Default?wait=false")).get(0);
    }

    static Http.Reply trace(String pid, String txn, String extra) {
        return Http.post("/api/v1/traces", "{\"partitionId\":\"" + pid + "\",\"transactionId\":\"" + txn + "\"" + extra
                + "}");
    }

    @Test
    void tracesAreRecordedAndReadBackByMessageByNameAndAsNames() {
        Api.pushN("traced", "Default", "t", 0, 2);
        JsonNode m = popOne("traced");
        String pid = m.get("partitionId").asText();
        Http.Reply r1 = trace(pid, "t-0", ",\"data\":{\"step\":1},\"traceNames\":[\"order-1\",\"flow\"],"
                + "\"consumerGroup\":\"billing\",\"workerId\":\"w1\"");
        assertEquals(201, r1.status(), r1.body());
        assertTrue(Api.json(r1.body()).get("success").asBoolean());
        Http.Reply r2 = trace(pid, "t-0", ",\"data\":{\"step\":2},\"eventType\":\"error\",\"traceNames\":\"order-1\"");
        assertEquals(201, r2.status(), r2.body());
        assertEquals(201, trace(pid, "t-1", ",\"data\":{\"step\":3},\"traceNames\":null").status());

        JsonNode byMsg = Api.json(Http.get("/api/v1/traces/" + pid + "/t-0").body()).get("traces");
        assertEquals(2, byMsg.size());
        assertEquals("info", byMsg.get(0).get("event_type").asText());
        assertEquals(1, byMsg.get(0).get("data").get("step").asInt());
        assertEquals("billing", byMsg.get(0).get("consumer_group").asText());
        assertEquals("w1", byMsg.get(0).get("worker_id").asText());
        assertEquals("[\"flow\",\"order-1\"]", byMsg.get(0).get("trace_names").toString());
        assertEquals("error", byMsg.get(1).get("event_type").asText());
        assertEquals("__QUEUE_MODE__", byMsg.get(1).get("consumer_group").asText());

        JsonNode byName = Api.json(Http.get("/api/v1/traces/by-name/order-1?limit=1").body());
        assertEquals(2, byName.get("total").asLong());
        assertEquals(1, byName.get("traces").size());
        JsonNode newest = byName.get("traces").get(0);
        assertEquals(2, newest.get("data").get("step").asInt());
        assertEquals("traced", newest.get("queue_name").asText());
        assertEquals("Default", newest.get("partition_name").asText());
        assertEquals(0, newest.get("message_payload").get("n").asInt());
        assertEquals("t-0", newest.get("transaction_id").asText());
        assertEquals(1, byName.get("pagination").get("limit").asInt());

        JsonNode names = Api.json(Http.get("/api/v1/traces/names").body());
        assertEquals(2, names.get("total").asLong());
        JsonNode order = names.get("trace_names").get(0);
        assertEquals("order-1", order.get("trace_name").asText());
        assertEquals(2, order.get("trace_count").asLong());
        assertEquals(1, order.get("message_count").asLong());
    }

    @Test
    void badTracesAnswer400And404() {
        Api.pushN("tracebad", "Default", "b", 0, 1);
        String pid = popOne("tracebad").get("partitionId").asText();
        assertEquals(400, Http.post("/api/v1/traces", "{\"data\":{}}").status());
        Http.Reply noData = trace(pid, "b-0", "");
        assertEquals(400, noData.status());
        assertTrue(noData.body().contains("data is required"), noData.body());
        assertEquals(400, trace(pid, "b-0", ",\"data\":\"text\"").status());
        assertEquals(400, trace(pid, "b-0", ",\"data\":{},\"traceNames\":[1]").status());
        assertEquals(400, trace(pid, "b-0", ",\"data\":{},\"eventType\":\"" + "x".repeat(65) + "\"").status());
        Http.Reply unknown = trace(pid, "nope", ",\"data\":{}");
        assertEquals(404, unknown.status(), unknown.body());
        assertTrue(unknown.body().contains("Message not found"));
        assertEquals(404, trace("00000000-0000-0000-0000-000000000042", "b-0", ",\"data\":{}").status());
        assertEquals(404, trace("not-a-uuid", "b-0", ",\"data\":{}").status());
        assertEquals(400, Http.get("/api/v1/traces/not-a-uuid/b-0").status());
        assertEquals(400, Http.get("/api/v1/traces/names?limit=0").status());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.message_traces t JOIN queen.log_partitions p"
                + " ON p.id = t.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'tracebad'"));
    }

    @Test
    void tracesFollowTheirQueuesRetentionAndDieWithTheirQueue() throws Exception {
        Api.configure("traceret", "{\"retentionEnabled\":true,\"retentionSeconds\":60}");
        Api.pushN("traceret", "Default", "r", 0, 1);
        String pid = popOne("traceret").get("partitionId").asText();
        assertEquals(201, trace(pid, "r-0", ",\"data\":{},\"traceNames\":[\"kept-then-gone\"]").status());
        Api.pushN("tracedel", "Default", "d", 0, 1);
        String pid2 = popOne("tracedel").get("partitionId").asText();
        assertEquals(201, trace(pid2, "d-0", ",\"data\":{},\"traceNames\":[\"deleted\"]").status());

        cycle.runOnce(Instant.now().plusSeconds(30));
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.message_traces WHERE partition_id = '" + pid + "'"));
        cycle.runOnce(Instant.now().plusSeconds(600));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.message_traces WHERE partition_id = '" + pid + "'"));
        assertEquals(0, Api.json(Http.get("/api/v1/traces/by-name/kept-then-gone").body()).get("total").asLong());

        assertEquals(200, Http.delete("/api/v1/resources/queues/tracedel").status());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.message_traces WHERE partition_id = '" + pid2 + "'"));
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.message_trace_names WHERE trace_name = 'deleted'"));
        StorageInvariants.assertHold(ds);
    }
}
