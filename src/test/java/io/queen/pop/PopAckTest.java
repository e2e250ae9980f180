package io.queen.pop;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Api.pushThenPop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Consumers;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The consume path through HTTP: pop, leases, acks, retries, dead letters, groups, long poll. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PopAckTest {
    @Inject
    AgroalDataSource ds;

    static List<Integer> ns(JsonNode popped) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode m : messages(popped)) {
            out.add(m.get("data").get("n").asInt());
        }
        return out;
    }

    @Test
    void popShapeAndNothingIs204() {
        assertEquals(204, Http.get("/api/v1/pop/queue/nope/partition/Default").status());
        assertEquals(204, Http.get("/api/v1/pop/queue/nope").status());
        assertEquals(204, Http.get("/api/v1/pop/queue/nope?wait=true&timeout=200").status());
        pushN("shape", "P1", "s", 0, 2);
        JsonNode p = pop("/api/v1/pop/queue/shape/partition/P1?batch=10");
        assertEquals(true, p.get("success").asBoolean());
        assertEquals("shape", p.get("queue").asText());
        assertEquals("P1", p.get("partition").asText());
        assertEquals("__QUEUE_MODE__", p.get("consumerGroup").asText());
        assertEquals(1, p.get("partitionsClaimed").asInt());
        String lease = p.get("leaseId").asText();
        assertFalse(lease.isEmpty());
        List<JsonNode> ms = messages(p);
        assertEquals(2, ms.size());
        for (int i = 0; i < 2; i++) {
            JsonNode m = ms.get(i);
            assertEquals("s-" + i, m.get("transactionId").asText());
            assertEquals(p.get("partitionId").asText(), m.get("partitionId").asText());
            assertEquals(lease, m.get("leaseId").asText());
            assertEquals(i, m.get("data").get("n").asInt());
            assertEquals(i, m.get("offset").asInt());
            assertTrue(m.get("createdAt").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z"));
            assertTrue(m.get("traceId").isNull());
            assertTrue(m.get("producerSub").isNull());
            assertEquals("shape", m.get("queue").asText());
        }
        assertNull(pop("/api/v1/pop/queue/shape/partition/P1"), "the lease is held: nothing for anyone else");
        assertEquals(204, Http.get("/api/v1/pop/queue/shape/partition/P1?wait=true&timeout=300").status(),
                "a held lease is not an early empty answer: the long poll runs to its timeout");
    }

    /**
     * A pop that finds nothing pending leaves read-only: it does not lock the cursor row, so it takes no
     * transaction id and its commit flushes no WAL (an fsync per empty pop before). Transaction ids are
     * cluster-wide (anything else on the server moves them), so the test reads what a write or a row lock of
     * this queue's own pops would leave behind: a new version (ctid, xmin) or a locker (xmax) on its partition
     * and cursor rows.
     */
    @Test
    void emptyPopsTakeNoTransactionId() {
        pushN("empty-pop", "Default", "e", 0, 3);
        JsonNode got = pop("/api/v1/pop/queue/empty-pop/partition/Default?batch=10");
        ackAll(got, "completed", null);
        String rowVersions = """
                SELECT string_agg(v, ' ' ORDER BY v) FROM (
                  SELECT 'p' || p.ctid || ':' || p.xmin || ':' || p.xmax AS v
                    FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'empty-pop'
                  UNION ALL
                  SELECT 'c' || c.ctid || ':' || c.xmin || ':' || c.xmax || ':' || c.consumer_group
                    FROM queen.log_consumers c JOIN queen.log_partitions p ON p.id = c.partition_id
                    JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'empty-pop') r""";
        String before = Sql.one(ds, rowVersions);
        assertTrue(before.contains("c("), "the acked pop left a cursor row: " + before);
        for (int i = 0; i < 40; i++) {
            assertNull(pop("/api/v1/pop/queue/empty-pop/partition/Default?batch=10"));
            assertNull(pop("/api/v1/pop/queue/empty-pop?batch=10"));
        }
        assertEquals(before, Sql.one(ds, rowVersions), "40 empty pops wrote or locked this queue's rows");
    }

    /**
     * Commits announced to other brokers are coalesced into NOTIFY rounds at least QUEEN_NOTIFY_INTERVAL_MS (10 ms)
     * apart: back-to-back pushes cannot produce more rounds than the elapsed time allows.
     */
    @Test
    void notifyRoundsAreSpacedByTheInterval() throws Exception {
        // another broker's LISTEN connection, as wakeup.WakeListener opens it (the name is how brokers find each other)
        try (Connection peer = ds.getConnection(); Statement st = peer.createStatement()) {
            st.execute("SET application_name = 'queen-listen'");
            st.execute("LISTEN queen_push");
            // the publisher trusts its last count of listeners for 250 ms
            Thread.sleep(300);
            double before = Api.metric("queen_pop_notify_rounds_total");
            long started = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                pushN("notify-spacing", "P" + (i % 3), "ns" + i, 0, 1);
            }
            double elapsedMs = (System.nanoTime() - started) / 1e6;
            for (int i = 0; i < 100 && Api.metric("queen_pop_notify_rounds_total") <= before; i++) {
                Thread.sleep(20);
            }
            double rounds = Api.metric("queen_pop_notify_rounds_total") - before;
            assertTrue(rounds >= 1, "the commits were announced");
            assertTrue(rounds <= elapsedMs / 10 + 2, rounds + " rounds in " + elapsedMs + " ms");
            Set<String> heard = new HashSet<>();
            PGConnection pg = peer.unwrap(PGConnection.class);
            for (int i = 0; i < 20 && heard.stream().noneMatch(k -> k.endsWith("/notify-spacing")); i++) {
                PGNotification[] got = pg.getNotifications(100);
                if (got != null) {
                    for (PGNotification n : got) {
                        heard.add(n.getParameter());
                    }
                }
            }
            assertTrue(heard.stream().anyMatch(k -> k.endsWith("/notify-spacing")), "the peer heard " + heard);
            st.execute("UNLISTEN *");
            st.execute("RESET application_name");
        }
    }

    /** With no other broker listening on the database, commits are not announced at all. */
    @Test
    void noNotifyRoundsWhenNoOtherBrokerListens() throws InterruptedException {
        // wait out a listener count made while another test's peer connection was open (trusted 250 ms)
        double skipped = Api.metric("queen_pop_notify_skipped_total");
        for (int i = 0; i < 100 && Api.metric("queen_pop_notify_skipped_total") <= skipped; i++) {
            pushN("notify-alone", "P", "wait" + i, 0, 1);
            Thread.sleep(20);
        }
        assertTrue(Api.metric("queen_pop_notify_skipped_total") > skipped, "rounds are skipped");
        double rounds = Api.metric("queen_pop_notify_rounds_total");
        skipped = Api.metric("queen_pop_notify_skipped_total");
        for (int i = 0; i < 20; i++) {
            pushN("notify-alone", "P" + (i % 3), "na" + i, 0, 1);
            Thread.sleep(15);
        }
        for (int i = 0; i < 100 && Api.metric("queen_pop_notify_skipped_total") <= skipped; i++) {
            Thread.sleep(20);
        }
        assertEquals(rounds, Api.metric("queen_pop_notify_rounds_total"), "no NOTIFY with nobody listening");
        assertTrue(Api.metric("queen_pop_notify_skipped_total") > skipped);
    }

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

    List<Integer> drain(String queue, String group) {
        List<Integer> seen = new ArrayList<>();
        JsonNode p;
        String g = group == null ? "" : "&consumerGroup=" + group;
        while ((p = pop("/api/v1/pop/queue/" + queue + "?batch=50" + g)) != null) {
            seen.addAll(ns(p));
            ackAll(p, "completed", group);
        }
        return seen;
    }

    @Test
    void concurrentConsumersOfOnePartitionNeverHoldOverlappingBatches() throws Exception {
        int total = 400;
        for (int i = 0; i < total; i += 100) {
            pushN("lease1", "Default", "l", i, 100);
        }
        record Hold(long from, long to, List<Integer> ns) {
        }
        List<Hold> holds = Collections.synchronizedList(new ArrayList<>());
        Consumers.run(8, () -> Consumers.popUntilEmpty("/api/v1/pop/queue/lease1/partition/Default?batch=7",
                () -> false, 20, 5, p -> {
                    long got = System.nanoTime();
                    long release = System.nanoTime();
                    holds.add(new Hold(got, release, ns(p)));
                    for (JsonNode r : ackAll(p, "completed", null)) {
                        assertTrue(r.get("success").asBoolean(), r.toString());
                    }
                }));
        Set<Integer> all = new HashSet<>();
        for (Hold h : holds) {
            for (int n : h.ns()) {
                assertTrue(all.add(n), "message " + n + " delivered twice");
            }
        }
        assertEquals(total, all.size(), "every message delivered");
        List<Hold> sorted = new ArrayList<>(holds);
        sorted.sort((a, b) -> Long.compare(a.from(), b.from()));
        for (int i = 1; i < sorted.size(); i++) {
            assertTrue(sorted.get(i).from() > sorted.get(i - 1).to(), "two leases of one partition overlapped");
            assertTrue(sorted.get(i).ns().get(0) > sorted.get(i - 1).ns().get(0), "batches in offset order");
        }
    }

    @Test
    void expiredLeaseRedeliversWithoutSpendingTheRetryBudget() throws Exception {
        configure("expiry", "{\"leaseTime\":1,\"retryLimit\":1}");
        pushN("expiry", "Default", "e", 0, 3);
        JsonNode first = pop("/api/v1/pop/queue/expiry/partition/Default?batch=2");
        assertEquals(List.of(0, 1), ns(first));
        Thread.sleep(1300);
        JsonNode again = pop("/api/v1/pop/queue/expiry/partition/Default?batch=2");
        assertEquals(List.of(0, 1), ns(again), "the same span is redelivered");
        assertNotEquals(first.get("leaseId").asText(), again.get("leaseId").asText());
        assertEquals("0|2", Sql.one(ds, "SELECT batch_retry_count || '|' || attempt_count FROM queen.log_consumers c"
                + " JOIN queen.log_partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = 'expiry'"));
        // the old lease is dead: acks carrying it are refused and change nothing
        JsonNode stale = ackAll(first, "completed", null).get(0);
        assertFalse(stale.get("success").asBoolean());
        assertEquals("Invalid or expired lease", stale.get("error").asText());
        for (JsonNode r : ackAll(again, "completed", null)) {
            assertTrue(r.get("success").asBoolean());
        }
        assertEquals(List.of(2), ns(pop("/api/v1/pop/queue/expiry/partition/Default?batch=2")));
    }

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
        JsonNode res = io.queen.testing.Api.json(Http.post("/api/v1/ack/batch", body).body());
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
        JsonNode r = io.queen.testing.Api.json(Http.post("/api/v1/ack/batch", body).body());
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
    void autoAckCommitsOnDelivery() {
        pushN("auto", "Default", "a", 0, 3);
        JsonNode p = pop("/api/v1/pop/queue/auto/partition/Default?batch=2&autoAck=true");
        assertEquals("", p.get("leaseId").asText());
        assertEquals("", p.get("messages").get(0).get("leaseId").asText());
        assertEquals(List.of(2), ns(pop("/api/v1/pop/queue/auto/partition/Default?batch=5&autoAck=1")));
        assertNull(pop("/api/v1/pop/queue/auto/partition/Default"));
    }

    @Test
    void delayedProcessingAndWindowBuffer() throws Exception {
        configure("delayed", "{\"delayedProcessing\":1}");
        pushN("delayed", "Default", "dl", 0, 1);
        assertNull(pop("/api/v1/pop/queue/delayed/partition/Default"));
        Thread.sleep(1200);
        assertEquals(List.of(0), ns(pop("/api/v1/pop/queue/delayed/partition/Default")));

        configure("windowed", "{\"windowBuffer\":1}");
        pushN("windowed", "Default", "w", 0, 3);
        assertNull(pop("/api/v1/pop/queue/windowed/partition/Default?batch=4"));
        Thread.sleep(1200);
        assertEquals(List.of(0, 1, 2), ns(pop("/api/v1/pop/queue/windowed/partition/Default?batch=4")));
    }

    @Test
    void subscriptionModes() throws Exception {
        pushN("subs", "Default", "h", 0, 3);
        assertNull(pop("/api/v1/pop/queue/subs/partition/Default?consumerGroup=late&subscriptionMode=new"),
                "new skips history");
        assertNull(pop("/api/v1/pop/queue/subs?consumerGroup=late2&subscriptionFrom=now"));
        Thread.sleep(20);
        String mark = java.time.Instant.now().toString();
        Thread.sleep(20);
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

    @Test
    void wildcardPopClaimsSeveralPartitionsUnderOneLease() {
        for (String part : List.of("A", "B", "C")) {
            pushN("wild", part, "w" + part, 0, 2);
        }
        JsonNode p = pop("/api/v1/pop/queue/wild?batch=100&partitions=3");
        assertEquals(6, messages(p).size());
        assertEquals(3, p.get("partitionsClaimed").asInt());
        Set<String> pids = new HashSet<>();
        Set<String> leases = new HashSet<>();
        for (JsonNode m : messages(p)) {
            pids.add(m.get("partitionId").asText());
            leases.add(m.get("leaseId").asText());
        }
        assertEquals(3, pids.size());
        assertEquals(1, leases.size());
        assertEquals(200, Http.post("/api/v1/lease/" + p.get("leaseId").asText() + "/extend", "").status());
        for (JsonNode r : ackAll(p, "completed", null)) {
            assertTrue(r.get("success").asBoolean());
        }
        for (String part : List.of("D", "E", "F", "G", "H")) {
            pushN("wild2", part, "w" + part, 0, 100);
        }
        assertEquals(10, messages(pop("/api/v1/pop/queue/wild2?batch=10&partitions=5")).size(), "batch is a global cap");
        assertEquals(1, pop("/api/v1/pop/queue/wild2?batch=1000").get("partitionsClaimed").asInt(),
                "default: one partition");
    }

    @Test
    void leaseExtension() throws Exception {
        configure("renew", "{\"leaseTime\":1}");
        pushN("renew", "Default", "r", 0, 1);
        JsonNode p = pop("/api/v1/pop/queue/renew/partition/Default");
        String lease = p.get("leaseId").asText();
        Http.Reply r = Http.post("/api/v1/lease/" + lease + "/extend", "{\"seconds\":5}");
        assertEquals(200, r.status(), r.body());
        JsonNode body = io.queen.testing.Api.json(r.body());
        assertEquals(lease, body.get("leaseId").asText());
        assertTrue(body.get("success").asBoolean());
        assertNotNull(body.get("newExpiresAt").asText());
        Thread.sleep(1300);
        assertNull(pop("/api/v1/pop/queue/renew/partition/Default"), "the extended lease still holds");
        assertTrue(ackAll(p, "completed", null).get(0).get("success").asBoolean());
        assertEquals(404, Http.post("/api/v1/lease/no-such-lease/extend", "").status());
        assertEquals(400, Http.post("/api/v1/lease/" + lease + "/extend", "{\"seconds\":\"x\"}").status());

        pushN("renew", "Default", "r", 1, 1);
        JsonNode p2 = pop("/api/v1/pop/queue/renew/partition/Default");
        Thread.sleep(1300);
        Http.Reply expired = Http.post("/api/v1/lease/" + p2.get("leaseId").asText() + "/extend", "{}");
        assertEquals(409, expired.status(), expired.body());
    }

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
        JsonNode res = io.queen.testing.Api.json(r.body());
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
        JsonNode ok = io.queen.testing.Api.json(Http.post("/api/v1/transaction", good).body());
        assertTrue(ok.get("success").asBoolean(), ok.toString());
        assertEquals("push", ok.get("results").get(0).get("type").asText());
        assertEquals(1, pop("/api/v1/pop/queue/tx-dst/partition/Default").get("messages").get(0).get("data").get("v").asInt());
        assertEquals(0, Sql.count(ds, "SELECT committed FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'tx-src'"));

        assertEquals(400, Http.post("/api/v1/transaction", "{\"operations\":[]}").status());
        assertEquals(400, Http.post("/api/v1/transaction", "{}").status());
        JsonNode unknown = io.queen.testing.Api.json(Http.post("/api/v1/transaction",
                "{\"operations\":[{\"type\":\"frobnicate\"}]}").body());
        assertFalse(unknown.get("success").asBoolean());
        assertEquals("Unknown operation type: frobnicate", unknown.get("error").asText());
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
        assertEquals(1, io.queen.testing.Api.json(d.body()).get("deletedPartitions").asInt());
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

    @Test
    void longPollWakesOnAPushAndTimesOutWith204() throws Exception {
        ConcurrentHashMap<String, Long> t = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<JsonNode> waiting = pool.submit(() -> pop("/api/v1/pop/queue/lp/partition/Default?wait=true&timeout=20000"));
        Thread.sleep(300);
        long pushed = System.nanoTime();
        pushN("lp", "Default", "lp", 0, 1);
        JsonNode got = waiting.get();
        long latencyMs = (System.nanoTime() - pushed) / 1_000_000;
        pool.shutdown();
        assertEquals(List.of(0), ns(got));
        assertTrue(latencyMs < 15000, "woken by the push, not by the 20 s timeout: " + latencyMs + " ms");
        t.put("latency", latencyMs);
        long start = System.nanoTime();
        assertEquals(204, Http.get("/api/v1/pop/queue/lp-empty/partition/Default?wait=true&timeout=700").status());
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 650, "held until the timeout");
    }

    @Test
    void minPopWaitTimeHoldsAnUnderFullBatchUntilItFillsOrTheHoldEnds() throws Exception {
        double holdsBefore = Api.metric("queen_pop_holds_total");
        configure("hold-fill", "{\"minPopWaitTime\":20000}");
        configure("hold-none", "{}");
        configure("hold-short", "{\"minPopWaitTime\":300}");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        // 1 of 5 pending: the pop holds; 4 more arrive one by one and the full batch is answered at once
        pushN("hold-fill", "P", "f", 0, 1);
        pushN("hold-none", "P", "n", 0, 1);
        Future<JsonNode> fill = pool.submit(() -> pop("/api/v1/pop/queue/hold-fill/partition/P?batch=5&wait=true&timeout=30000"));
        Future<JsonNode> none = pool.submit(() -> pop("/api/v1/pop/queue/hold-none/partition/P?batch=5&wait=true&timeout=30000"));
        Thread.sleep(300);
        for (int n = 1; n < 5; n++) {
            pushN("hold-fill", "P", "f", n, 1);
            pushN("hold-none", "P", "n", n, 1);
        }
        long start = System.nanoTime();
        assertEquals(List.of(0, 1, 2, 3, 4), ns(fill.get()));
        assertTrue((System.nanoTime() - start) / 1_000_000 < 15000, "answered when the batch filled, not at the hold's end");
        assertEquals(List.of(0), ns(none.get()), "without minPopWaitTime the pop answers what is there");
        pool.shutdown();
        // the hold ends after minPopWaitTime with what there is, long before the pop's timeout
        pushN("hold-short", "P", "s", 0, 2);
        start = System.nanoTime();
        assertEquals(List.of(0, 1), ns(pop("/api/v1/pop/queue/hold-short/partition/P?batch=5&wait=true&timeout=30000")));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 250 && ms < 15000, "held about 300 ms: " + ms);
        // no hold without a long poll or with a batch of one, nor on an empty queue (it long-polls as usual)
        pushN("hold-short", "Q", "q", 0, 2);
        JsonNode one = pop("/api/v1/pop/queue/hold-short/partition/Q?batch=1&wait=true&timeout=30000");
        assertEquals(List.of(0), ns(one));
        ackAll(one, "completed", null);
        assertEquals(List.of(1), ns(pop("/api/v1/pop/queue/hold-short/partition/Q?batch=5")));
        assertEquals(2.0, Api.metric("queen_pop_holds_total") - holdsBefore, "held: hold-fill and hold-short/P only");
    }
}
