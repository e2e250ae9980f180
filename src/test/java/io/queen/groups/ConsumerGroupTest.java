package io.queen.groups;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Popped.drain;
import static io.queen.testing.Popped.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Consumer groups through HTTP: each group reads the whole log on its own cursor, subscription modes, acks for a
 * group, delete and seek.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsumerGroupTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void partitionIsDeliveredInOffsetOrderAndEveryGroupSeesEverything() {
        pushN("order", "Default", "o", 0, 30);
        pushN("order", "Default", "o", 30, 30);
        for (String g : List.of("g1", "g2")) {
            List<Integer> seen = new ArrayList<>();
            JsonNode p;
            while ((p = pop("/api/v1/pop/queue/order/partition/Default?batch=7&consumerGroup=" + g
                    + "&subscriptionMode=all")) != null) {
                seen.addAll(ns(p));
                for (JsonNode r : ackAll(p, "completed", g)) {
                    assertTrue(r.get("success").asBoolean(), r.toString());
                }
            }
            List<Integer> expect = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                expect.add(i);
            }
            assertEquals(expect, seen, "group " + g);
        }
        // queue mode is a group of its own and also sees everything
        assertEquals(60, drain("order", null).size());
    }

    @Test
    void subscriptionModes() throws Exception {
        pushN("subs", "Default", "h", 0, 3);
        assertNull(pop("/api/v1/pop/queue/subs/partition/Default?consumerGroup=late&subscriptionMode=new"),
                "new skips history");
        assertNull(pop("/api/v1/pop/queue/subs?consumerGroup=late2&subscriptionFrom=now"));
        // the database's clock, read between the history's commits and the next push's
        String mark = Sql.one(ds, "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC',"
                + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
        pushN("subs", "Default", "h", 3, 2);
        assertEquals(List.of(3, 4), ns(pop("/api/v1/pop/queue/subs/partition/Default?batch=10&consumerGroup=late")));
        assertEquals(List.of(3, 4), ns(pop("/api/v1/pop/queue/subs?batch=10&consumerGroup=late2")));
        assertEquals(List.of(3, 4), ns(pop("/api/v1/pop/queue/subs?batch=10&consumerGroup=ts&subscriptionFrom=" + mark)));
        JsonNode early = pop("/api/v1/pop/queue/subs?batch=10&consumerGroup=early&subscriptionMode=from_beginning");
        assertEquals(List.of(0, 1, 2, 3, 4), ns(early));
        ackAll(early, "completed", "early");
        assertNull(pop("/api/v1/pop/queue/subs?batch=10&consumerGroup=early"));
        // the start point is recorded once per (group, queue): a later first contact with a NEW partition uses it
        pushN("subs", "Other", "o", 0, 1);
        assertEquals(List.of(0), ns(pop("/api/v1/pop/queue/subs/partition/Other?consumerGroup=late&subscriptionMode=all")),
                "a partition created after the subscription is read from its start");
    }

    /** An ack batch acks for one group: an item's own group is honoured without a request group, else must match. */
    @Test
    void anAckBatchItemsConsumerGroupIsHonouredOrRejectedNeverIgnored() {
        Api.pushN("batchgroup", "p", "m", 0, 2);
        JsonNode popped = Api.pop("/api/v1/pop/queue/batchgroup/partition/p?wait=false&batch=2&consumerGroup=billing");
        List<JsonNode> ms = messages(popped);
        assertEquals(2, ms.size());
        ObjectNode body = Api.M.createObjectNode();
        for (JsonNode m : ms) {
            body.withArray("acknowledgments").addObject().put("transactionId", m.get("transactionId").asText())
                    .put("partitionId", m.get("partitionId").asText()).put("leaseId", m.get("leaseId").asText())
                    .put("consumerGroup", "billing");
        }
        body.put("consumerGroup", "shipping");
        Http.Reply r = Http.post("/api/v1/ack/batch", body.toString());
        assertEquals(400, r.status(), r.body());
        assertEquals("acknowledgments[0].consumerGroup 'billing' differs from the request's consumerGroup 'shipping':"
                + " one batch acknowledges for one consumer group", Api.json(r.body()).get("error").asText());
        body.remove("consumerGroup");
        r = Http.post("/api/v1/ack/batch", body.toString());
        assertEquals(200, r.status(), r.body());
        for (JsonNode res : Api.json(r.body())) {
            assertTrue(res.get("success").asBoolean(), r.body());
        }
        assertNull(Api.pop("/api/v1/pop/queue/batchgroup/partition/p?wait=false&consumerGroup=billing"));
    }

    /**
     * A lease id belongs to one (partition, consumer group) cursor: an ack that does not repeat the group is for the
     * group its lease names, whether this broker remembers the delivery or only the cursor rows know it, and a
     * batch without a group may carry the leases of several groups and queue mode.
     */
    @Test
    void anAckWithoutConsumerGroupIsForTheGroupItsLeaseNames() {
        Api.pushN("leasegroup", "p", "m", 0, 3);
        JsonNode first = pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&batch=1&consumerGroup=billing");
        JsonNode single = Api.ack(messages(first).get(0), "completed", null, null);
        assertTrue(single.get("success").asBoolean(), single.toString());
        JsonNode billing = pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&batch=2&consumerGroup=billing");
        assertEquals(List.of(1, 2), ns(billing), "billing's cursor moved past the acked message");
        // a partial ack (group named) consumes what the broker remembered of billing's delivery: the lease of the
        // rest is known only to its cursor row, as on another broker or after a restart
        assertTrue(Api.ack(messages(billing).get(0), "completed", "billing", null).get("success").asBoolean());

        JsonNode shipping = pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&batch=3&consumerGroup=shipping");
        JsonNode queueMode = pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&batch=3");
        ObjectNode body = Api.M.createObjectNode();
        List<JsonNode> acked = new ArrayList<>(messages(billing).subList(1, 2));
        acked.addAll(messages(shipping));
        acked.addAll(messages(queueMode));
        for (JsonNode m : acked) {
            body.withArray("acknowledgments").addObject().put("transactionId", m.get("transactionId").asText())
                    .put("partitionId", m.get("partitionId").asText()).put("leaseId", m.get("leaseId").asText())
                    .put("status", "completed");
        }
        Http.Reply r = Http.post("/api/v1/ack/batch", body.toString());
        assertEquals(200, r.status(), r.body());
        JsonNode res = Api.json(r.body());
        assertEquals(7, res.size());
        for (int i = 0; i < 7; i++) {
            assertEquals(i, res.get(i).get("index").asInt());
            assertEquals(acked.get(i).get("transactionId").asText(), res.get(i).get("transactionId").asText());
            assertTrue(res.get(i).get("success").asBoolean(), r.body());
        }
        assertNull(pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&consumerGroup=billing"));
        assertNull(pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false&consumerGroup=shipping"));
        assertNull(pop("/api/v1/pop/queue/leasegroup/partition/p?wait=false"));
    }

    @Test
    void groupDeleteAndSeekMakeMessagesConsumableAgain() {
        pushN("cg", "Default", "c", 0, 5);
        assertEquals(5, drain("cg", "grp").size());
        assertEquals(0, drain("cg", "grp").size());
        Http.Reply d = Http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(Http.base() + "/api/v1/consumer-groups/grp/queues/cg?deleteMetadata=true"))
                .DELETE().build());
        assertEquals(200, d.status(), d.body());
        assertEquals(1, Api.json(d.body()).get("deletedPartitions").asInt());
        assertEquals(5, drain("cg", "grp").size(), "a recreated group starts fresh");

        Http.Reply s = Http.post("/api/v1/consumer-groups/grp/queues/cg/seek", "{\"timestamp\":\"2000-01-01T00:00:00Z\"}");
        assertEquals(200, s.status(), s.body());
        assertEquals(5, drain("cg", "grp").size(), "seek to the past re-delivers");
        assertEquals(200, Http.post("/api/v1/consumer-groups/grp/queues/cg/seek", "{\"timestamp\":\"2000-01-01T00:00:00Z\"}").status());
        assertEquals(200, Http.post("/api/v1/consumer-groups/grp/queues/cg/seek", "{\"toEnd\":true}").status());
        assertEquals(0, drain("cg", "grp").size(), "seek to the end skips");
        assertEquals(400, Http.post("/api/v1/consumer-groups/grp/queues/cg/seek", "{}").status());
        assertEquals(400, Http.post("/api/v1/consumer-groups/grp/queues/cg/seek", "{\"timestamp\":\"yesterday\"}").status());
        Http.Reply unknownQueue = Http.post("/api/v1/consumer-groups/grp/queues/no-such-queue/seek", "{\"toEnd\":true}");
        assertEquals(404, unknownQueue.status(), unknownQueue.body());
        assertEquals("{\"success\":false,\"error\":\"Queue not found\"}", unknownQueue.body());
        assertEquals(404, Http.post("/api/v1/consumer-groups/grp/queues/cg/partitions/none/seek", "").status());
        assertEquals(200, Http.post("/api/v1/consumer-groups/grp/queues/cg/partitions/Default/seek", "").status());
        Http.Reply all = Http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(Http.base() + "/api/v1/consumer-groups/grp")).DELETE().build());
        assertEquals(200, all.status());
        assertEquals(400, Http.post("/api/v1/consumer-groups/grp/subscription", "{}").status());
        assertEquals(200, Http.post("/api/v1/consumer-groups/grp/subscription",
                "{\"subscriptionTimestamp\":\"2020-01-01T00:00:00Z\"}").status());
    }
}
