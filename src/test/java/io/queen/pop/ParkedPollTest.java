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
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A parked long poll costs the database nothing until something can satisfy it: no re-query on a timer on an
 * empty queue; yet it is woken by what frees work without a write (a lease expiring, an ack ending a lease). On the
 * {@link DrivenClock}: the polls' 10 s pass when the test moves the clock.
 */
@QuarkusTest
@TestProfile(DrivenClock.Profile.class)
// The maintenance switches are read every 250 ms by default: background the count would have to absorb.
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.maintenance.poll-ms", value = "600000")})
class ParkedPollTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    DrivenClock clock;

    /**
     * Database work the broker has started so far: every statement it runs takes a connection from its pool (a
     * count kept by the pool, where PostgreSQL's own statistics reach its view up to 10 s late).
     */
    private long connectionsTaken() {
        return ds.getMetrics().acquireCount();
    }

    @BeforeEach
    void countConnectionsTaken() {
        ds.getConfiguration().setMetricsEnabled(true);  // off unless a metrics export asks for them
    }

    @Test
    void parkedPollsOnAnEmptyQueueCostAlmostNoTransactions() throws Exception {
        pushN("idle", "Default", "warm", 0, 1);
        assertNotNull(pop("/api/v1/pop/queue/idle/partition/Default?autoAck=true"));
        int n = 50;
        long before = connectionsTaken();
        List<CompletableFuture<Http.Reply>> polls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            polls.add(CompletableFuture.supplyAsync(
                    () -> Http.get("/api/v1/pop/queue/idle/partition/Default?wait=true&timeout=30000")));
        }
        // their first 10 s pass a second at a time (every second each parked poll looks at its client, without a
        // query), then the rest at once; the clock also runs on in real time, which the 30 s absorb
        for (int s = 0; s < 10; s++) {
            clock.awaitParked(n);
            clock.advance(Duration.ofSeconds(1));
        }
        clock.awaitParked(n);
        clock.advance(Duration.ofSeconds(30));
        for (CompletableFuture<Http.Reply> p : polls) {
            assertEquals(204, p.get().status());
        }
        long spent = connectionsTaken() - before;
        assertTrue(spent > 0, "the first poll's claim is counted");
        assertTrue(spent < 5L * n, n + " polls parked 30 s each cost " + spent + " statements");
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
        clock.awaitParked(1);
        Api.ackAll(first, "completed", null);
        Http.Reply second = parked.get();
        assertEquals(200, second.status(), "the rest of the partition reaches the parked poll");
        assertEquals("f-1", messages(Api.json(second.body())).get(0).get("transactionId").asText());
    }
}
