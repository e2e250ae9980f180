package io.queen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueenDriverTest {

    private final ObjectMapper mapper = new ObjectMapper();

    private QueenDriver driver(String... args) throws Exception {
        return new QueenDriver(Cli.parse(args), "run1");
    }

    @Test
    void pushBodyShape() throws Exception {
        try (QueenDriver d = driver()) {
            var t = new Driver.Target("bench-run1-q0", "p3");
            byte[] body = d.pushBody(t, List.of(
                    new Driver.OutMessage("run1-0-0", Payloads.payload(0, 0, 1, 64)),
                    new Driver.OutMessage("run1-0-1", Payloads.payload(0, 1, 2, 64))));
            JsonNode root = mapper.readTree(body);
            JsonNode items = root.get("items");
            assertEquals(2, items.size());
            assertEquals("bench-run1-q0", items.get(0).get("queue").asText());
            assertEquals("p3", items.get(0).get("partition").asText());
            assertEquals("run1-0-1", items.get(1).get("transactionId").asText());
            assertEquals(1, items.get(1).get("payload").get("s").asLong());
        }
    }

    @Test
    void pushResponseStatuses() throws Exception {
        try (QueenDriver d = driver()) {
            String resp = "[{\"index\":0,\"status\":\"queued\"},{\"index\":1,\"status\":\"duplicate\"},"
                    + "{\"index\":2,\"status\":\"failed\",\"error\":\"x\"},{\"index\":3,\"status\":\"buffered\"}]";
            var out = d.parsePushResponse(resp.getBytes(StandardCharsets.UTF_8), 5);
            assertEquals(Driver.PushStatus.QUEUED, out.get(0).status());
            assertEquals(Driver.PushStatus.DUPLICATE, out.get(1).status());
            assertEquals("push-item-duplicate", out.get(1).errorKind());
            assertEquals(Driver.PushStatus.FAILED, out.get(2).status());
            assertEquals(Driver.PushStatus.BUFFERED, out.get(3).status());
            assertEquals("push-response-short", out.get(4).errorKind());
            assertEquals("push-bad-response", d.parsePushResponse("{".getBytes(), 1).get(0).errorKind());
        }
    }

    @Test
    void popPaths() throws Exception {
        try (QueenDriver d = driver("--pop-wait-ms", "1500")) {
            assertEquals("/api/v1/pop/queue/q%20x/partition/p1?batch=10&wait=true&timeout=1500",
                    d.popPath("q x", new Driver.Target("q x", "p1"), null, 10, 1500));
            assertEquals("/api/v1/pop/queue/q?batch=5&wait=false&consumerGroup=g1&subscriptionMode=all",
                    d.popPath("q", null, "g1", 5, 0));
        }
        try (QueenDriver d = driver("--ack", "auto")) {
            assertTrue(d.popPath("q", null, null, 1, 100).endsWith("&autoAck=true"));
        }
    }

    @Test
    void popResponseAndAckBody() throws Exception {
        try (QueenDriver d = driver()) {
            String resp = """
                    {"success":true,"leaseId":"L","messages":[
                      {"id":"m1","transactionId":"run1-0-0","partitionId":"P","leaseId":"L","partition":"p0",
                       "data":{"p":0,"s":0,"t":5,"pad":""}},
                      {"id":"m2","transactionId":"other","partitionId":"P","leaseId":"L","data":"text"}]}""";
            var r = d.parsePopResponse(resp.getBytes(StandardCharsets.UTF_8), "q", null);
            assertNull(r.errorKind());
            assertEquals(2, r.deliveries().size());
            var first = r.deliveries().get(0);
            assertEquals("P", first.partitionKey());
            assertEquals(new Payloads.Stamp(0, 0, 5), first.stamp());
            assertNull(r.deliveries().get(1).stamp());
            assertTrue(d.parsePopResponse(new byte[0], "q", null).deliveries().isEmpty());
            assertTrue(d.parsePopResponse("{\"messages\":[]}".getBytes(), "q", null).deliveries().isEmpty());

            JsonNode ack = mapper.readTree(d.ackBody("g0", r.deliveries()));
            assertEquals("g0", ack.get("consumerGroup").asText());
            JsonNode a0 = ack.get("acknowledgments").get(0);
            assertEquals("run1-0-0", a0.get("transactionId").asText());
            assertEquals("P", a0.get("partitionId").asText());
            assertEquals("L", a0.get("leaseId").asText());
            assertEquals("completed", a0.get("status").asText());
            assertFalse(mapper.readTree(d.ackBody(null, r.deliveries())).has("consumerGroup"));
        }
    }

    @Test
    void queueNamesAndLikePattern() {
        assertEquals("bench-abc-q2", QueenDriver.queueName("bench", "abc", 2));
        assertEquals("a\\_b\\%c-%", QueenDriver.likePrefix("a_b%c-"));
    }
}
