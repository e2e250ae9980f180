package io.queen.streams;

import static io.queen.streams.StreamsApi.commit;
import static io.queen.streams.StreamsApi.cycle;
import static io.queen.streams.StreamsApi.item;
import static io.queen.streams.StreamsApi.obj;
import static io.queen.streams.StreamsApi.register;
import static io.queen.streams.StreamsApi.state;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Leases;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The /streams/v1 routes: registration, bad input, the cycle's atomicity, leases, replays, state lifecycle. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StreamsTest {
    @Inject
    AgroalDataSource ds;

    private static final String G = "streams.q";

    /** Pushes n source messages to queue/partition and pops them with the group; returns the pop. */
    private static final java.util.concurrent.atomic.AtomicInteger SEEDS = new java.util.concurrent.atomic.AtomicInteger();

    private static JsonNode seedAndPop(String queue, String partition, int n) {
        pushN(queue, partition, partition + "-src" + SEEDS.incrementAndGet(), 0, n);
        JsonNode p = pop("/api/v1/pop/queue/" + queue + "/partition/" + partition + "?batch=" + n + "&consumerGroup=" + G);
        assertNotNull(p);
        assertEquals(n, messages(p).size());
        return p;
    }

    private static String txn(JsonNode popped, int i) {
        return messages(popped).get(i).get("transactionId").asText();
    }

    private static Map<String, JsonNode> ops(Object... kv) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (JsonNode) kv[i + 1]);
        }
        return m;
    }

    private long committed(String pid) {
        String c = Sql.one(ds, "SELECT committed FROM queen.log_consumers WHERE partition_id = '" + pid
                + "' AND consumer_group = '" + G + "'");
        return c == null ? Long.MIN_VALUE : Long.parseLong(c);
    }

    private long sinkCount(String queue) {
        return Sql.count(ds, "SELECT COALESCE(sum(s.end_offset - s.base_offset + 1), 0) FROM queen.log_segments s"
                + " JOIN queen.log_partitions p ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE q.name = '" + queue + "'");
    }

    @Test
    void registrationAnswersAndConflicts() {
        Http.Reply r = Http.post("/streams/v1/queries", "[1]");
        assertEquals(400, r.status());
        assertEquals("request body must be a JSON object", Api.json(r.body()).get("error").asText());
        assertEquals(400, Http.post("/streams/v1/queries", "").status());
        for (String field : List.of("name", "source_queue", "config_hash")) {
            ObjectNode b = Api.M.createObjectNode().put("name", "n1").put("source_queue", "s").put("config_hash", "h");
            b.put(field, "");
            r = Http.post("/streams/v1/queries", b.toString());
            assertEquals(400, r.status(), r.body());
            assertEquals(field + " is required", Api.json(r.body()).get("error").asText());
            b.remove(field);
            r = Http.post("/streams/v1/queries", b.toString());
            assertEquals(field + " is required", Api.json(r.body()).get("error").asText());
        }
        r = Http.post("/streams/v1/queries", "{\"name\":\"reg\",\"source_queue\":\"reg-src\",\"config_hash\":\"h1\"}");
        assertEquals(200, r.status(), r.body());
        JsonNode first = Api.json(r.body());
        assertTrue(first.get("success").asBoolean());
        assertTrue(first.get("fresh").asBoolean());
        assertFalse(first.get("reset").asBoolean());
        assertEquals("reg", first.get("name").asText());
        assertEquals("h1", first.get("config_hash").asText());
        JsonNode again = Api.json(Http.post("/streams/v1/queries",
                "{\"name\":\"reg\",\"source_queue\":\"reg-src\",\"config_hash\":\"h1\"}").body());
        assertFalse(again.get("fresh").asBoolean());
        assertEquals(first.get("query_id").asText(), again.get("query_id").asText());
        r = Http.post("/streams/v1/queries", "{\"name\":\"reg\",\"source_queue\":\"reg-src\",\"config_hash\":\"h2\"}");
        assertEquals(409, r.status());
        assertFalse(Api.json(r.body()).get("success").asBoolean());
        assertTrue(Api.json(r.body()).get("error").asText().contains("config_hash"));
        assertEquals("h1", Sql.one(ds, "SELECT config_hash FROM queen_streams.queries WHERE name = 'reg'"));
    }

    @Test
    void resetWipesTheQueryState() {
        String q = register("wipe", "wipe-src", null, "h1");
        JsonNode p = seedAndPop("wipe-src", "P", 2);
        String pid = messages(p).get(0).get("partitionId").asText();
        JsonNode res = commit(cycle(q, pid, G, ops("k", obj("n", 1)), null, p.get("leaseId").asText(), 2, txn(p, 1)));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertEquals(1, state(q, pid).size());
        assertEquals(q, register("wipe", "wipe-src", null, "h1"));
        assertEquals(1, state(q, pid).size(), "same hash, no reset: state kept");
        Http.Reply r = Http.post("/streams/v1/queries",
                "{\"name\":\"wipe\",\"source_queue\":\"wipe-src\",\"config_hash\":\"h2\",\"reset\":true}");
        assertEquals(200, r.status());
        assertTrue(Api.json(r.body()).get("reset").asBoolean());
        assertEquals(q, Api.json(r.body()).get("query_id").asText());
        assertTrue(state(q, pid).isEmpty());
    }

    @Test
    void cycleCommitsStatePushAndAck() {
        String q = register("happy", "happy-src", "happy-sink", "h");
        JsonNode p = seedAndPop("happy-src", "P", 10);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        assertTrue(state(q, pid).isEmpty());
        List<ObjectNode> items = List.of(item("happy-sink", "P", "w-0", obj("sum", 45)),
                item("happy-sink", "P", "w-1", obj("sum", 1)));
        JsonNode res = commit(cycle(q, pid, G, ops("a", obj("sum", 45), "b", obj("sum", 1)), items, lease, 10,
                txn(p, 9)));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertEquals(2, res.get("state_ops_applied").asInt());
        assertEquals(q, res.get("query_id").asText());
        assertEquals(2, res.get("push_results").size());
        assertEquals("queued", res.get("push_results").get(0).get("status").asText());
        assertTrue(res.get("ack_result").get("lease_released").asBoolean());
        assertEquals(10, res.get("ack_result").get("count").asInt());
        assertEquals(9, committed(pid));
        assertEquals(2, sinkCount("happy-sink"));
        Map<String, JsonNode> st = state(q, pid);
        assertEquals(45, st.get("a").get("sum").asInt());
        // keys filter: missing keys are simply absent
        ObjectNode get = Api.M.createObjectNode().put("query_id", q).put("partition_id", pid);
        get.putArray("keys").add("b").add("nope");
        JsonNode rows = Api.json(Http.post("/streams/v1/state/get", get.toString()).body()).get("rows");
        assertEquals(1, rows.size());
        assertEquals("b", rows.get(0).get("key").asText());
        assertNotNull(rows.get(0).get("updated_at").asText());
        // a delete and an upsert of one key in one cycle: the last op wins
        JsonNode p2 = seedAndPop("happy-src", "P", 1);
        res = commit(cycle(q, pid, G, ops("a", null), null, p2.get("leaseId").asText(), 1, null));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertNull(state(q, pid).get("a"));
        assertTrue(res.get("ack_result").get("lease_released").asBoolean());
    }

    @Test
    void badInputAnswers400AndChangesNothing() {
        String q = register("bad", "bad-src", null, "h");
        register("other", "other-src", null, "h");
        JsonNode p = seedAndPop("bad-src", "P", 3);
        JsonNode o = seedAndPop("other-src", "P", 1);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        List<JsonNode> bad = new ArrayList<>();
        // unknown query
        bad.add(cycle("00000000-0000-0000-0000-00000000abcd", pid, G, ops("k", obj("n", 1)), null, lease, 3, null));
        // a partition of another queue
        bad.add(cycle(q, o.get("partitionId").asText(), G, ops("k", obj("n", 1)), null, o.get("leaseId").asText(),
                1, null));
        // a non-object state value
        ObjectNode nonObject = cycle(q, pid, G, ops("k", obj("n", 1)), null, lease, 3, null);
        ((ObjectNode) nonObject.get("state_ops").get(0)).put("value", 42);
        bad.add(nonObject);
        // a key over the limit (1024 UTF-8 bytes by default)
        bad.add(cycle(q, pid, G, ops("é".repeat(513), obj("n", 1)), null, lease, 3, null));
        // an unknown op type, a missing query_id
        ObjectNode badType = cycle(q, pid, G, ops("k", obj("n", 1)), null, lease, 3, null);
        ((ObjectNode) badType.get("state_ops").get(0)).put("type", "merge");
        bad.add(badType);
        ObjectNode noQuery = cycle(q, pid, G, null, null, lease, 3, null);
        noQuery.remove("query_id");
        bad.add(noQuery);
        for (JsonNode b : bad) {
            Http.Reply r = StreamsApi.post(Http.base(), "/streams/v1/cycle", b);
            assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE partition_id = '" + pid + "'"), b.toString() + " -> " + r.body());
            assertEquals(400, r.status(), r.body());
            assertFalse(Api.json(r.body()).get("success").asBoolean());
            assertFalse(Api.json(r.body()).get("error").asText().isEmpty());
        }
        assertEquals(400, Http.post("/streams/v1/cycle", "\"x\"").status());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE partition_id = '" + pid + "'"));
        assertEquals(-1, committed(pid));
        // the lease was not touched: the real cycle still commits, and a 1024-byte key is accepted
        JsonNode res = commit(cycle(q, pid, G, ops("é".repeat(512), obj("n", 1)), null, lease, 3, null));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertEquals(2, committed(pid));
    }

    /** Failure injected in each part (state, sink push, ack): nothing of the other parts survives. */
    @Test
    void threePartsCommitOrRollBackTogether() {
        String q = register("atomic", "atomic-src", "atomic-sink", "h");
        JsonNode p = seedAndPop("atomic-src", "P", 5);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        Sql.exec(ds, """
                CREATE OR REPLACE FUNCTION public.inject_fail() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'injected failure in %', TG_TABLE_NAME; END $$""");
        Sql.exec(ds, "CREATE TRIGGER inject_state BEFORE INSERT ON queen_streams.state FOR EACH ROW"
                + " WHEN (NEW.key = 'boom') EXECUTE FUNCTION public.inject_fail()");
        // sink failure: any segment bound for partition 'fail' of the sink queue
        Sql.exec(ds, """
                CREATE OR REPLACE FUNCTION public.inject_push_fail() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF EXISTS (SELECT 1 FROM queen.log_partitions lp WHERE lp.id = NEW.partition_id AND lp.name = 'fail')
                  THEN RAISE EXCEPTION 'injected push failure'; END IF;
                  RETURN NEW;
                END $$""");
        Sql.exec(ds, "CREATE TRIGGER inject_push BEFORE INSERT ON queen.log_segments FOR EACH ROW"
                + " EXECUTE FUNCTION public.inject_push_fail()");
        // ack failure: the cursor UPDATE of this group is refused
        Sql.exec(ds, "CREATE TRIGGER inject_ack BEFORE UPDATE ON queen.log_consumers FOR EACH ROW"
                + " WHEN (NEW.consumer_group = '" + G + "' AND NEW.committed > OLD.committed)"
                + " EXECUTE FUNCTION public.inject_fail()");
        try {
            List<ObjectNode> good = List.of(item("atomic-sink", "ok", "a-1", obj("v", 1)));
            List<ObjectNode> failing = List.of(item("atomic-sink", "ok", "a-1", obj("v", 1)),
                    item("atomic-sink", "fail", "a-2", obj("v", 2)));
            // 1. state part fails (state of the other key, push and ack are rolled back)
            JsonNode res = commit(cycle(q, pid, G, ops("fine", obj("n", 1), "boom", obj("n", 2)), good, lease, 5,
                    null));
            assertFalse(res.get("success").asBoolean(), res.toString());
            assertTrue(res.get("error").asText().contains("injected failure"), res.toString());
            // 2. push part fails
            res = commit(cycle(q, pid, G, ops("fine", obj("n", 1)), failing, lease, 5, null));
            assertFalse(res.get("success").asBoolean(), res.toString());
            assertTrue(res.get("error").asText().contains("injected push failure"), res.toString());
            // 3. ack part fails
            res = commit(cycle(q, pid, G, ops("fine", obj("n", 1)), good, lease, 5, null));
            assertFalse(res.get("success").asBoolean(), res.toString());
            assertTrue(res.get("error").asText().contains("injected failure in log_consumers"), res.toString());
            assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE partition_id = '" + pid + "'"));
            assertEquals(0, sinkCount("atomic-sink"));
            assertEquals(-1, committed(pid));
        } finally {
            Sql.exec(ds, "DROP TRIGGER inject_state ON queen_streams.state");
            Sql.exec(ds, "DROP TRIGGER inject_push ON queen.log_segments");
            Sql.exec(ds, "DROP TRIGGER inject_ack ON queen.log_consumers");
        }
        // the same cycle commits once the failures are gone
        JsonNode res = commit(cycle(q, pid, G, ops("fine", obj("n", 1)),
                List.of(item("atomic-sink", "ok", "a-1", obj("v", 1))), lease, 5, null));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertEquals(1, sinkCount("atomic-sink"));
        assertEquals(4, committed(pid));
    }

    @Test
    void expiredLeaseWritesNothing() throws Exception {
        configure("exp-src", "{\"leaseTime\":1}");
        String q = register("exp", "exp-src", "exp-sink", "h");
        JsonNode p = seedAndPop("exp-src", "P", 3);
        String pid = p.get("partitionId").asText();
        assertEquals(1, Leases.expire(ds, "exp-src"), "the 1 s lease runs out");
        JsonNode res = commit(cycle(q, pid, G, ops("k", obj("n", 1)), List.of(item("exp-sink", "P", "e-1",
                obj("v", 1))), p.get("leaseId").asText(), 3, null));
        assertFalse(res.get("success").asBoolean());
        assertEquals("Invalid or expired lease", res.get("error").asText());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE partition_id = '" + pid + "'"));
        assertEquals(0, sinkCount("exp-sink"));
        assertEquals(-1, committed(pid));
        // a lease of another partition of the same group does not count either
        JsonNode other = seedAndPop("exp-src", "Q", 1);
        res = commit(cycle(q, pid, G, null, null, other.get("leaseId").asText(), 1, null));
        assertFalse(res.get("success").asBoolean());
    }

    /** Worker A's lease expires, worker B re-pops: only B's cycle commits, even when both race. */
    @Test
    void twoWorkersNeverBothCommit() throws Exception {
        configure("race-src", "{\"leaseTime\":1}");
        String q = register("race", "race-src", "race-sink", "h");
        JsonNode a = seedAndPop("race-src", "P", 4);
        String pid = a.get("partitionId").asText();
        assertEquals(1, Leases.expire(ds, "race-src"), "the 1 s lease runs out");
        JsonNode b = pop("/api/v1/pop/queue/race-src/partition/P?batch=4&consumerGroup=" + G);
        assertNotNull(b);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<JsonNode>> fs = new ArrayList<>();
            for (JsonNode w : List.of(a, b, b, a, b, a)) {
                String lease = w.get("leaseId").asText();
                Callable<JsonNode> task = () -> {
                    go.await();
                    return commit(cycle(q, pid, G, ops("count", obj("n", 4)),
                            List.of(item("race-sink", "P", "r-" + lease, obj("v", 1))), lease, 4, null));
                };
                fs.add(pool.submit(task));
            }
            go.countDown();
            int ok = 0;
            for (Future<JsonNode> f : fs) {
                if (f.get().get("success").asBoolean()) {
                    ok++;
                }
            }
            assertEquals(1, ok);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, sinkCount("race-sink"));
        JsonNode sunk = pop("/api/v1/pop/queue/race-sink/partition/P?batch=10&consumerGroup=check");
        assertEquals("r-" + b.get("leaseId").asText(), messages(sunk).get(0).get("transactionId").asText(),
                "the committed cycle is the one under the live lease");
        assertEquals(3, committed(pid));
    }

    /** The client lost the answer and sends the cycle again: its sink messages exist once. */
    @Test
    void replayedCycleWritesOnce() {
        String q = register("replay", "replay-src", "replay-sink", "h");
        JsonNode p = seedAndPop("replay-src", "P", 2);
        String pid = p.get("partitionId").asText();
        ObjectNode body = cycle(q, pid, G, ops("k", obj("n", 2)), List.of(item("replay-sink", "P", "x-1",
                obj("v", 1)), item("replay-sink", "P", null, obj("v", 2))), p.get("leaseId").asText(), 2, null);
        assertTrue(commit(body).get("success").asBoolean());
        JsonNode again = commit(body);
        assertFalse(again.get("success").asBoolean());
        assertEquals(2, sinkCount("replay-sink"));
        assertEquals(1, committed(pid));
        // an ack-less cycle (idle flush) replayed: the sink's dedup answers duplicate and writes nothing
        ObjectNode flush = cycle(q, pid, G, ops("k", null), List.of(item("replay-sink", "P", "w-9", obj("v", 9))),
                null, null, null);
        JsonNode f1 = commit(flush);
        assertTrue(f1.get("success").asBoolean(), f1.toString());
        assertTrue(f1.get("ack_result").isNull());
        JsonNode f2 = commit(flush);
        assertTrue(f2.get("success").asBoolean(), f2.toString());
        assertEquals("duplicate", f2.get("push_results").get(0).get("status").asText());
        assertEquals(f1.get("push_results").get(0).get("message_id").asText(),
                f2.get("push_results").get(0).get("message_id").asText());
        assertEquals(3, sinkCount("replay-sink"));
    }

    /** A gate keeps the lease on its unacked tail: ordered partial acks, then the rest. */
    @Test
    void partialAckKeepsTheLease() {
        String q = register("gate", "gate-src", null, "h");
        JsonNode p = seedAndPop("gate-src", "P", 10);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        ObjectNode body = cycle(q, pid, G, ops("tokens", obj("left", 0)), null, lease, 3, txn(p, 2));
        body.put("release_lease", false);
        JsonNode res = commit(body);
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertFalse(res.get("ack_result").get("lease_released").asBoolean());
        assertEquals(2, committed(pid));
        assertNull(pop("/api/v1/pop/queue/gate-src/partition/P?batch=10&consumerGroup=" + G), "lease kept");
        JsonNode over = commit(cycle(q, pid, G, null, null, lease, 8, null));
        assertFalse(over.get("success").asBoolean());
        assertTrue(over.get("error").asText().contains("exceeds"), over.toString());
        // the first partial cycle again (its answer was lost): already committed, nothing moves
        JsonNode replay = commit(body);
        assertFalse(replay.get("success").asBoolean());
        assertTrue(replay.get("error").asText().startsWith(CycleService.ALREADY_COMMITTED), replay.toString());
        assertEquals(2, committed(pid));
        // an ack naming a message outside the span it covers
        JsonNode wrong = commit(cycle(q, pid, G, null, null, lease, 2, txn(p, 9)));
        assertFalse(wrong.get("success").asBoolean());
        assertTrue(wrong.get("error").asText().contains("not among"), wrong.toString());
        res = commit(cycle(q, pid, G, null, null, lease, 7, txn(p, 9)));
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertTrue(res.get("ack_result").get("lease_released").asBoolean());
        assertEquals(9, committed(pid));
    }

    @Test
    void failedAckSpendsRetryBudgetThenDeadLetters() {
        configure("fail-src", "{\"retryLimit\":1}");
        String q = register("fail", "fail-src", null, "h");
        JsonNode p = seedAndPop("fail-src", "P", 1);
        String pid = p.get("partitionId").asText();
        String txn = messages(p).get(0).get("transactionId").asText();
        ObjectNode body = cycle(q, pid, G, ops("seen", obj("n", 1)), null, p.get("leaseId").asText(), null, txn);
        ((ObjectNode) body.get("ack")).put("status", "failed").put("error", "bad event");
        JsonNode res = commit(body);
        assertTrue(res.get("success").asBoolean(), res.toString());
        assertFalse(res.get("ack_result").get("dlq").asBoolean());
        assertTrue(res.get("ack_result").get("lease_released").asBoolean());
        JsonNode again = pop("/api/v1/pop/queue/fail-src/partition/P?batch=1&consumerGroup=" + G);
        assertNotNull(again, "redelivered after one failure");
        body = cycle(q, pid, G, null, null, again.get("leaseId").asText(), null, txn);
        ((ObjectNode) body.get("ack")).put("status", "failed").put("error", "bad event");
        res = commit(body);
        assertTrue(res.get("ack_result").get("dlq").asBoolean(), res.toString());
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_dlq WHERE partition_id = '" + pid + "'"));
        assertEquals(0, committed(pid));
    }

    /** Deleting a queue deletes its partitions' state; partition cleanup never picks a partition holding state. */
    @Test
    void stateFollowsItsPartition() {
        String q = register("life", "life-src", null, "h");
        JsonNode p = seedAndPop("life-src", "P", 1);
        String pid = p.get("partitionId").asText();
        assertTrue(commit(cycle(q, pid, G, ops("k", obj("n", 1)), null, p.get("leaseId").asText(), 1, null))
                .get("success").asBoolean());
        // make the partition look dead to cleanup (empty, idle for long) except for its state
        Sql.exec(ds, "DELETE FROM queen.log_segments WHERE partition_id = '" + pid + "'");
        Sql.exec(ds, "UPDATE queen.log_partitions SET created_at = now() - interval '90 days', last_write_at = now()"
                + " - interval '90 days', oldest_live_at = NULL WHERE id = '" + pid + "'");
        Sql.exec(ds, "UPDATE queen.log_consumers SET created_at = now() - interval '90 days', lease_acquired_at = NULL,"
                + " lease_expires_at = NULL WHERE partition_id = '" + pid + "'");
        assertEquals("false", Sql.one(ds, "SELECT queen.log_partition_dead_v1('" + pid + "', now() - interval '30 days')"));
        Sql.exec(ds, "SELECT queen.log_partition_cleanup_step_v1(now() - interval '30 days')");
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions WHERE id = '" + pid + "'"));
        Sql.exec(ds, "DELETE FROM queen_streams.state WHERE partition_id = '" + pid + "'");
        assertEquals("true", Sql.one(ds, "SELECT queen.log_partition_dead_v1('" + pid + "', now() - interval '30 days')"));
        // queue delete takes the state of its partitions along
        JsonNode p2 = seedAndPop("life-src", "R", 1);
        String pid2 = p2.get("partitionId").asText();
        assertTrue(commit(cycle(q, pid2, G, ops("k", obj("n", 1)), null, p2.get("leaseId").asText(), 1, null))
                .get("success").asBoolean());
        assertEquals(1, state(q, pid2).size());
        assertEquals(200, Http.delete("/api/v1/resources/queues/life-src").status());
        assertTrue(state(q, pid2).isEmpty());
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE partition_id = '" + pid2 + "'"));
        // the registration stays; a new queue of that name starts with empty state
        assertEquals(q, register("life", "life-src", null, "h"));
    }
}
