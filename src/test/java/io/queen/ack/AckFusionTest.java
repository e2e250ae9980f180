package io.queen.ack;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Api.pushThenPop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Consumers;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Leases;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Positional acks (ack registry + ack fusion): an ack naming exactly a batch this broker delivered commits to its
 * last offset without sidecar lookups, fused with other acks; anything else takes the decision procedure with
 * the same answers. The fused counters tell which path ran.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class AckFusionTest {
    static final String BATCHES = "queen_ack_fused_batches_total";
    static final String COMMITS = "queen_ack_fused_commits_total";

    @Inject
    AgroalDataSource ds;

    /** committed, batch_end, worker_id, total_consumed of the queue-mode cursor of one partition. */
    List<Object> cursor(String pid) {
        return Sql.rows(ds, "SELECT committed, batch_end, worker_id, total_consumed FROM queen.log_consumers"
                + " WHERE partition_id = '" + pid + "' AND consumer_group = '__QUEUE_MODE__'").get(0);
    }

    @Test
    void wholeBatchCommitsPositionally() {
        pushN("af-whole", "p", "w", 0, 5);
        JsonNode p = pop("/api/v1/pop/queue/af-whole/partition/p?batch=10");
        String pid = p.get("partitionId").asText();
        double before = metric(BATCHES);
        JsonNode res = ackAll(p, "completed", null);
        assertEquals(1, metric(BATCHES) - before, "the whole-batch ack took the positional path");
        assertEquals(5, res.size());
        for (int i = 0; i < 5; i++) {
            JsonNode r = res.get(i);
            assertEquals(i, r.get("index").asInt());
            assertEquals("w-" + i, r.get("transactionId").asText());
            assertTrue(r.get("success").asBoolean(), r.toString());
            assertTrue(r.get("error").isNull());
            assertEquals("af-whole", r.get("queueName").asText());
            assertEquals("p", r.get("partitionName").asText());
            assertTrue(r.get("leaseReleased").asBoolean());
            assertFalse(r.get("dlq").asBoolean());
        }
        assertEquals(Arrays.asList(4L, null, null, 5L), cursor(pid), "committed to the last offset, lease gone");
        assertNull(pop("/api/v1/pop/queue/af-whole/partition/p"), "nothing left to deliver");

        // the same ack again (a client retrying after a lost answer): the registry entry was consumed, the
        // decision procedure answers; the lease named is over but the messages are committed, so the re-ack is
        // the idempotent success it asks for, and nothing moves
        JsonNode again = ackAll(p, "completed", null);
        assertEquals(1, metric(BATCHES) - before);
        for (JsonNode r : again) {
            assertTrue(r.get("success").asBoolean(), r.toString());
            assertFalse(r.get("leaseReleased").asBoolean(), r.toString());
        }
        assertEquals(Arrays.asList(4L, null, null, 5L), cursor(pid));
        // a negative ack under the ended lease is still refused: it cannot undo a commit
        JsonNode failed = ackAll(p, "failed", null);
        for (JsonNode r : failed) {
            assertFalse(r.get("success").asBoolean(), r.toString());
            assertEquals("Invalid or expired lease", r.get("error").asText());
        }
        assertEquals(Arrays.asList(4L, null, null, 5L), cursor(pid));
    }

    /**
     * A fused commit that committed but whose answer was lost (its PostgreSQL backend killed after COMMIT) throws,
     * and its acks fall back to the decision procedure, which finds the lease they ended already gone. They must
     * answer success: the commit happened. Here the fused commit's effect is made by hand, with the function the
     * fusion runs, before the HTTP ack arrives; the ack then takes exactly that fallback.
     */
    @Test
    void anAckWhoseCommitAlreadyHappenedAnswersSuccess() {
        JsonNode p = pushThenPop("af-doubt", "p", "d", 4, 10);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        assertEquals("true", Sql.one(ds, "SELECT ok FROM queen.log_ack_multi_v1(ARRAY['" + pid + "']::uuid[],"
                + " ARRAY['__QUEUE_MODE__'], ARRAY[3]::bigint[], ARRAY['" + lease + "'])"));
        double before = metric(BATCHES);
        JsonNode res = ackAll(p, "completed", null);
        assertEquals(0, metric(BATCHES) - before, "the positional commit found its lease gone");
        assertEquals(4, res.size());
        for (JsonNode r : res) {
            assertTrue(r.get("success").asBoolean(), r.toString());
            assertTrue(r.get("error").isNull(), r.toString());
            assertEquals("af-doubt", r.get("queueName").asText());
        }
        assertEquals(Arrays.asList(3L, null, null, 4L), cursor(pid), "nothing moved twice");
        // a message above the cursor under a lease that is over is refused: only the commit makes it true
        pushN("af-doubt", "p", "d", 4, 1);
        JsonNode late = ack("d-4", pid, lease, "completed", null, null);
        assertFalse(late.get("success").asBoolean(), late.toString());
        assertEquals("Invalid or expired lease", late.get("error").asText());
        assertEquals(3L, cursor(pid).get(0));
    }

    @Test
    void partialAndNegativeAcksTakeTheDecisionProcedure() {
        JsonNode p = pushThenPop("af-part", "p", "x", 4, 10);
        String pid = p.get("partitionId").asText();
        String lease = p.get("leaseId").asText();
        double before = metric(BATCHES);
        assertTrue(ack("x-0", pid, lease, "completed", null, null).get("success").asBoolean());
        JsonNode second = ack("x-1", pid, lease, "completed", null, null);
        assertTrue(second.get("success").asBoolean());
        assertFalse(second.get("leaseReleased").asBoolean(), "two of four acked: the lease stays");
        assertEquals(1L, cursor(pid).get(0));
        assertEquals(lease, cursor(pid).get(2));
        // the rest, one of them failed: the failure is redelivered, the success before it commits
        ArrayNode acks = Api.M.createArrayNode();
        for (String[] a : new String[][] {{"x-2", "completed"}, {"x-3", "failed"}}) {
            ObjectNode o = acks.addObject();
            o.put("transactionId", a[0]).put("partitionId", pid).put("leaseId", lease).put("status", a[1]);
        }
        Http.Reply r = Http.post("/api/v1/ack/batch", "{\"acknowledgments\":" + acks + "}");
        assertEquals(200, r.status(), r.body());
        assertEquals(0, metric(BATCHES) - before, "no positional commit for partial or negative acks");
        assertEquals(2L, cursor(pid).get(0));
        assertNull(cursor(pid).get(2), "the failure released the lease");
        JsonNode redelivered = pop("/api/v1/pop/queue/af-part/partition/p?batch=10");
        assertEquals(List.of("x-3"), messages(redelivered).stream().map(m -> m.get("transactionId").asText()).toList());
    }

    @Test
    void expiredLeaseIsRefusedAndRedelivered() throws Exception {
        configure("af-exp", "{\"leaseTime\":1}");
        JsonNode p = pushThenPop("af-exp", "p", "e", 3, 10);
        String pid = p.get("partitionId").asText();
        assertEquals(1, Leases.expire(ds, "af-exp"), "the 1 s lease runs out");
        double before = metric(BATCHES);
        JsonNode res = ackAll(p, "completed", null);
        assertEquals(0, metric(BATCHES) - before, "the positional commit refused the expired lease");
        for (JsonNode r : res) {
            assertFalse(r.get("success").asBoolean());
            assertEquals("Invalid or expired lease", r.get("error").asText());
        }
        assertEquals(-1L, cursor(pid).get(0), "nothing committed");
        JsonNode again = pop("/api/v1/pop/queue/af-exp/partition/p?batch=10");
        assertEquals(3, messages(again).size(), "redelivered after expiry");
        assertTrue(ackAll(again, "completed", null).get(2).get("success").asBoolean());
        assertEquals(2L, cursor(pid).get(0));
    }

    @Test
    void oneLeaseOverSeveralPartitionsCommitsInOneTransaction() {
        for (int i = 0; i < 3; i++) {
            pushN("af-multi", "p" + i, "m" + i, 0, 4);
        }
        JsonNode p = pop("/api/v1/pop/queue/af-multi?batch=100&partitions=3");
        assertEquals(3, p.get("partitionsClaimed").asInt());
        assertEquals(12, messages(p).size());
        double batches = metric(BATCHES);
        double commits = metric(COMMITS);
        JsonNode res = ackAll(p, "completed", null);
        for (JsonNode r : res) {
            assertTrue(r.get("success").asBoolean(), r.toString());
        }
        assertEquals(3, metric(BATCHES) - batches, "three (partition, lease) batches");
        assertEquals(1, metric(COMMITS) - commits, "committed in one transaction");
        assertEquals(3, Sql.count(ds, "SELECT count(*) FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'af-multi'"
                + " AND c.committed = 3 AND c.batch_end IS NULL AND c.worker_id IS NULL"));
    }

    @Test
    void concurrentConsumersEachMessageOnceAndAllCommitted() throws Exception {
        int partitions = 6;
        int perPartition = 200;
        for (int i = 0; i < partitions; i++) {
            for (int k = 0; k < perPartition; k += 100) {
                pushN("af-conc", "p" + i, "c" + i, k, 100);
            }
        }
        double before = metric(BATCHES);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger failedAcks = new AtomicInteger();
        Consumers.run(6, () -> Consumers.popUntilEmpty("/api/v1/pop/queue/af-conc?batch=37&wait=true&timeout=300",
                () -> false, 3, 0, p -> {
                    for (JsonNode m : messages(p)) {
                        if (!seen.add(m.get("transactionId").asText())) {
                            duplicates.incrementAndGet();
                        }
                    }
                    for (JsonNode r : ackAll(p, "completed", null)) {
                        if (!r.get("success").asBoolean()) {
                            failedAcks.incrementAndGet();
                        }
                    }
                }));
        assertEquals(partitions * perPartition, seen.size(), "every message delivered");
        assertEquals(0, duplicates.get(), "none twice");
        assertEquals(0, failedAcks.get());
        assertTrue(metric(BATCHES) - before > 0, "acks took the positional path");
        assertEquals(partitions, Sql.count(ds, "SELECT count(*) FROM queen.log_consumers c JOIN queen.log_partitions lp"
                + " ON lp.id = c.partition_id JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'af-conc'"
                + " AND c.committed = " + (perPartition - 1) + " AND c.batch_end IS NULL AND c.total_consumed = "
                + perPartition));
    }
}
