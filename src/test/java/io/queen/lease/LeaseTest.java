package io.queen.lease;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static io.queen.testing.Popped.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Leases through HTTP: one holder per partition at a time, expiry redelivers, extension keeps a lease alive.
 * A lease runs out through its cursor row ({@link Leases}), as time would leave it.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LeaseTest {
    @Inject
    AgroalDataSource ds;

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
        assertEquals(1, Leases.expire(ds, "expiry"), "the 1 s lease runs out");
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

    @Test
    void leaseExtension() throws Exception {
        configure("renew", "{\"leaseTime\":1}");
        pushN("renew", "Default", "r", 0, 1);
        JsonNode p = pop("/api/v1/pop/queue/renew/partition/Default");
        String lease = p.get("leaseId").asText();
        Http.Reply r = Http.post("/api/v1/lease/" + lease + "/extend", "{\"seconds\":5}");
        assertEquals(200, r.status(), r.body());
        JsonNode body = Api.json(r.body());
        assertEquals(lease, body.get("leaseId").asText());
        assertTrue(body.get("success").asBoolean());
        assertNotNull(body.get("newExpiresAt").asText());
        assertEquals(1, Leases.age(ds, "renew", Duration.ofMillis(1300)), "past the 1 s the lease had before");
        assertNull(pop("/api/v1/pop/queue/renew/partition/Default"), "the extended lease still holds");
        assertTrue(ackAll(p, "completed", null).get(0).get("success").asBoolean());
        assertEquals(404, Http.post("/api/v1/lease/no-such-lease/extend", "").status());
        assertEquals(400, Http.post("/api/v1/lease/" + lease + "/extend", "{\"seconds\":\"x\"}").status());

        pushN("renew", "Default", "r", 1, 1);
        JsonNode p2 = pop("/api/v1/pop/queue/renew/partition/Default");
        assertEquals(1, Leases.expire(ds, "renew"));
        Http.Reply expired = Http.post("/api/v1/lease/" + p2.get("leaseId").asText() + "/extend", "{}");
        assertEquals(409, expired.status(), expired.body());
    }
}
