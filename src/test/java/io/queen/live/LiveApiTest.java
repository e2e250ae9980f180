package io.queen.live;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The live figures, group members and queue purge over HTTP: counts published by the broker's sampler (called
 * directly instead of waiting for its timer) are summed per queue; a lease shows the address and user agent of the
 * client that took it; a purge empties a queue and keeps it; bad names are 400s naming the field.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LiveApiTest {
    @Inject
    LiveSampler sampler;
    @Inject
    LiveStore store;
    @Inject
    io.agroal.api.AgroalDataSource ds;

    private static JsonNode queue(JsonNode live, String name) {
        for (JsonNode q : live.get("queues")) {
            if (q.get("queue").asText().equals(name)) {
                return q;
            }
        }
        return null;
    }

    private static JsonNode popAs(String path, String agent) {
        Http.Reply r = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + path)).header("User-Agent", agent)
                .GET().timeout(Duration.ofSeconds(30)).build());
        assertEquals(200, r.status(), r.body());
        return json(r.body());
    }

    @Test
    void liveFiguresCountThisBrokersPushPopAndAckPerQueue() throws Exception {
        sampler.publishNow();
        pushN("live-a", "p", "a", 0, 7);
        pushN("live-b", "p", "b", 0, 2);
        ackAll(popAs("/api/v1/pop/queue/live-a?batch=3", "live-test/1"), "completed", null);
        sampler.publishNow();
        JsonNode live = json(Http.get("/api/v1/live").body());
        JsonNode a = queue(live, "live-a");
        assertEquals(7, a.get("pushed").asLong(), live.toString());
        assertEquals(3, a.get("popped").asLong(), live.toString());
        assertEquals(3, a.get("acked").asLong(), live.toString());
        assertTrue(a.get("push").asDouble() > 0, "a rate over the window: " + a);
        assertEquals(2, queue(live, "live-b").get("pushed").asLong());
        assertTrue(live.get("totals").get("pushed").asLong() >= 9, live.toString());
        assertEquals(1, live.get("brokers").size(), "one broker: " + live);
        assertTrue(live.get("brokers").get(0).get("push").asDouble() > 0, live.toString());
    }

    @Test
    void membersShowTheLeaseAndTheClientThatTookIt() throws Exception {
        pushN("live-m", "p", "m", 0, 3);
        JsonNode popped = popAs("/api/v1/pop/queue/live-m?batch=1&consumerGroup=billing", "members-test/2.0");
        sampler.publishNow();
        JsonNode m = json(Http.get("/api/v1/consumer-groups/billing/members").body());
        assertEquals("billing", m.get("group").asText());
        assertEquals(1, m.get("leases").size(), m.toString());
        JsonNode lease = m.get("leases").get(0);
        assertEquals("live-m", lease.get("queue").asText());
        assertEquals("p", lease.get("partition").asText());
        assertEquals(popped.get("leaseId").asText(), lease.get("leaseId").asText());
        assertEquals("members-test/2.0", lease.get("userAgent").asText());
        assertTrue(lease.get("address").asText().startsWith("127.0.0.1:"), lease.toString());
        assertTrue(lease.get("expiresInSeconds").asLong() > 0, lease.toString());
        JsonNode popper = m.get("poppers").get(0);
        assertEquals("members-test/2.0", popper.get("userAgent").asText());
        assertEquals(1, popper.get("pops").asLong());

        ackAll(popped, "completed", "billing");
        JsonNode after = json(Http.get("/api/v1/consumer-groups/billing/members").body());
        assertEquals(0, after.get("leases").size(), "an acked batch holds no lease: " + after);
        assertEquals(1, after.get("poppers").size(), "still a recent popper");
    }

    @Test
    void membersOfABadGroupNameAreA400NamingTheField() {
        Http.Reply r = Http.get("/api/v1/consumer-groups/" + "g".repeat(256) + "/members");
        assertEquals(400, r.status(), r.body());
        assertTrue(json(r.body()).get("error").asText().startsWith("group"), r.body());
    }

    @Test
    void purgeEmptiesTheQueueAndKeepsItsConfigurationAndGroups() {
        Http.Reply cfg = Http.post("/api/v1/configure", "{\"queue\":\"live-purge\",\"options\":{\"retryLimit\":9}}");
        assertEquals(200, cfg.status(), cfg.body());
        pushN("live-purge", "p0", "x", 0, 5);
        pushN("live-purge", "p1", "y", 0, 4);
        Http.Reply r = Http.post("/api/v1/resources/queues/live-purge/purge", "");
        assertEquals(200, r.status(), r.body());
        assertEquals(9, json(r.body()).get("messages").asLong(), r.body());
        JsonNode q = json(Http.get("/api/v1/resources/queues/live-purge").body());
        assertEquals(0, q.get("totals").get("total").asLong(), q.toString());
        assertEquals(9, q.get("config").get("retryLimit").asInt(), "configuration kept");
        assertEquals(204, Http.get("/api/v1/pop/queue/live-purge?batch=10").status(), "nothing left to pop");
        pushN("live-purge", "p0", "z", 0, 1);
        JsonNode again = json(Http.get("/api/v1/pop/queue/live-purge?batch=10").body());
        assertEquals("z-0", again.get("messages").get(0).get("transactionId").asText(), "a later push is delivered");

        Http.Reply unknown = Http.post("/api/v1/resources/queues/no-such-queue/purge", "");
        assertEquals(404, unknown.status(), unknown.body());
        Http.Reply bad = Http.post("/api/v1/resources/queues/" + "q".repeat(256) + "/purge", "");
        assertEquals(400, bad.status(), bad.body());
        assertTrue(json(bad.body()).get("error").asText().startsWith("queue"), bad.body());
        assertNull(queue(json(Http.get("/api/v1/live").body()), "no-such-queue"));
    }

    @Test
    void aTransactionIdIsFoundInWhicheverPartitionHoldsIt() {
        pushN("live-txn", "a", "x", 0, 2);
        pushN("live-txn", "b", "y", 0, 2);
        JsonNode found = json(Http.get("/api/v1/messages?queue=live-txn&transactionId=y-1").body());
        assertEquals(1, found.get("messages").size(), found.toString());
        JsonNode m = found.get("messages").get(0);
        assertEquals("b", m.get("partition").asText());
        assertEquals(1, m.get("offset").asLong());
        assertEquals(1, m.get("data").get("n").asInt());
        assertEquals(0, json(Http.get("/api/v1/messages?queue=live-txn&transactionId=z-9").body()).get("messages")
                .size());
        Http.Reply noQueue = Http.get("/api/v1/messages?transactionId=y-1");
        assertEquals(400, noQueue.status(), noQueue.body());
        assertTrue(json(noQueue.body()).get("error").asText().startsWith("queue"), noQueue.body());
        Http.Reply bad = Http.get("/api/v1/messages?queue=live-txn&transactionId=" + "t".repeat(1025));
        assertEquals(400, bad.status(), bad.body());
        assertTrue(json(bad.body()).get("error").asText().startsWith("transactionId"), bad.body());
    }

    @Test
    void figuresAreSummedOverTheBrokersThatPublishedRecently() throws Exception {
        pushN("live-sum", "p", "s", 0, 4);
        sampler.publishNow();
        String t = "00000000-0000-0000-0000-000000000001";
        String other = "00000000-0000-0000-0000-00000000000b";
        // a second broker, as it would publish: 6 more pushed to live-sum, and another tenant's queue
        store.publish(java.util.UUID.randomUUID(), "other-host", 2, 6633, java.time.Instant.now(),
                "{\"windowMs\":5000,\"totals\":{\"push\":3.0,\"pop\":0,\"ack\":0,\"pushed\":9,\"popped\":0,"
                        + "\"acked\":0},\"queues\":[{\"t\":\"" + t + "\",\"q\":\"live-sum\",\"push\":1.5,\"pop\":0,"
                        + "\"ack\":0,\"pushed\":6,\"popped\":0,\"acked\":0},{\"t\":\"" + other + "\",\"q\":\"theirs\","
                        + "\"push\":1.5,\"pop\":0,\"ack\":0,\"pushed\":3,\"popped\":0,\"acked\":0}],\"leases\":{},"
                        + "\"poppers\":[]}", 60);
        JsonNode live = json(Http.get("/api/v1/live").body());
        assertEquals(10, queue(live, "live-sum").get("pushed").asLong(), "4 here + 6 there: " + live);
        assertNull(queue(live, "theirs"), "another tenant's queue is not shown");
        assertEquals(2, live.get("brokers").size(), live.toString());
        // a broker silent for longer than the freshness bound is not summed
        io.queen.testing.Sql.exec(ds, "UPDATE queen.live_brokers SET updated_at = now() - interval '1 hour'"
                + " WHERE hostname = 'other-host'");
        JsonNode later = json(Http.get("/api/v1/live").body());
        assertEquals(4, queue(later, "live-sum").get("pushed").asLong(), later.toString());
        assertEquals(1, later.get("brokers").size());
    }
}
