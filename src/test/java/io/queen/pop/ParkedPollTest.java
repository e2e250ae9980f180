package io.queen.pop;

import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A parked long poll costs the database nothing until something can satisfy it: no re-query on a timer on an
 * empty queue; yet it is woken by what frees work without a write (a lease expiring, an ack ending a lease).
 */
@QuarkusTest
// The maintenance switches are read every 250 ms by default: background the count would have to absorb.
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.maintenance.poll-ms", value = "600000")})
class ParkedPollTest {
    @Inject
    AgroalDataSource ds;

    private long commits() {
        // a fresh snapshot each time (the statistics are cached per transaction otherwise)
        return Sql.count(ds, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
    }

    @Test
    void parkedPollsOnAnEmptyQueueCostAlmostNoTransactions() throws Exception {
        pushN("idle", "Default", "warm", 0, 1);
        assertNotNull(pop("/api/v1/pop/queue/idle/partition/Default?autoAck=true"));
        int n = 50;
        // backends report their counts when idle, at most every ~10 s: let earlier work be counted before t0
        Thread.sleep(11_000);
        long before = commits();
        List<CompletableFuture<Http.Reply>> polls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            polls.add(CompletableFuture.supplyAsync(
                    () -> Http.get("/api/v1/pop/queue/idle/partition/Default?wait=true&timeout=10000")));
        }
        for (CompletableFuture<Http.Reply> p : polls) {
            assertEquals(204, p.get().status());
        }
        Thread.sleep(11_000);   // and the window's own work before t1
        long spent = commits() - before;
        assertTrue(spent < 5L * n, n + " polls parked 10 s each cost " + spent + " transactions");
    }

    @Test
    void aParkedPollTakesOverAnExpiredLease() throws Exception {
        configure("expiry", "{\"leaseTime\":2}");
        pushN("expiry", "Default", "e", 0, 1);
        JsonNode first = pop("/api/v1/pop/queue/expiry/partition/Default");   // leased for 2 s, never acked
        assertNotNull(first);
        Http.Reply second = Http.get("/api/v1/pop/queue/expiry/partition/Default?wait=true&timeout=8000");
        assertEquals(200, second.status(), "the expired lease's message reaches the parked poll");
        assertEquals("e-0", messages(Api.json(second.body())).get(0).get("transactionId").asText());
    }

    @Test
    void anAckEndingALeaseWakesAParkedPoll() throws Exception {
        pushN("freed", "Default", "f", 0, 2);
        JsonNode first = pop("/api/v1/pop/queue/freed/partition/Default?batch=1");
        assertNotNull(first);
        CompletableFuture<Http.Reply> parked = CompletableFuture.supplyAsync(
                () -> Http.get("/api/v1/pop/queue/freed/partition/Default?wait=true&timeout=8000"));
        Thread.sleep(500);   // parked (if not yet, it finds f-1 at once after the ack: the same outcome)
        Api.ackAll(first, "completed", null);
        Http.Reply second = parked.get();
        assertEquals(200, second.status(), "the rest of the partition reaches the parked poll");
        assertEquals("f-1", messages(Api.json(second.body())).get(0).get("transactionId").asText());
    }
}
