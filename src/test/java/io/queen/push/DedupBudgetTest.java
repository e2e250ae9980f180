package io.queen.push;

import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;

import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker-side dedup indexes share one budget of hashes: a deleted queue must give its share back at once, and a
 * queue that went quiet within a sweep round once the budget runs short, or the busy queues' pushes lose their
 * index (every push probing its whole window in SQL). Each test starts with the whole budget (its queues deleted).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.push.dedup-cache-entries", value = "500"),
        // sweep rounds run only when a test asks for one
        @ResourceArg(name = "queen.push.lane-sweep-ms", value = "3600000")})
class DedupBudgetTest {
    static final String VOUCHED = "queen_push_dedup_vouched_total";
    static final String FULL = "queen_push_dedup_full_probes_total";
    static final String EXHAUSTED = "queen_push_dedup_budget_exhausted_total";
    static final String REBUILDS = "queen_push_dedup_rebuilds_total";
    static final String CACHED = "queen_push_dedup_cached_hashes";

    @Inject
    PushFusion fusion;

    @BeforeEach
    void wholeBudget() {
        for (String q : new String[] {"budget-a", "budget-b", "budget-c", "budget-d", "budget-e"}) {
            Http.delete("/api/v1/resources/queues/" + q);   // 404 when it does not exist yet
        }
        assertEquals(0, metric(CACHED), "hashes held at the start");
    }

    @Test
    void aDeletedQueueReleasesItsShareOfTheBudget() {
        configure("budget-a", "{\"dedupWindowSeconds\":600}");
        configure("budget-b", "{\"dedupWindowSeconds\":600}");
        for (int k = 0; k < 400; k += 100) {
            pushN("budget-a", "p", "a", k, 100);
        }
        assertEquals(200, Http.delete("/api/v1/resources/queues/budget-a").status());
        double vouched = metric(VOUCHED);
        double full = metric(FULL);
        for (int k = 0; k < 400; k += 100) {
            pushN("budget-b", "p", "b", k, 100);
        }
        // the first push of a partition probes in full (cold index); the next three are vouched for, which needs
        // 400 hashes of room: only there if budget-a's 400 were given back
        assertEquals(1, metric(FULL) - full, "full probes");
        assertEquals(3, metric(VOUCHED) - vouched, "vouched pushes");
    }

    @Test
    void aPartitionBeyondTheBudgetFallsBackToTheFullProbeAndStillCatchesDuplicates() {
        configure("budget-c", "{\"dedupWindowSeconds\":600}");
        double exhausted = metric(EXHAUSTED);
        for (int k = 0; k < 600; k += 100) {
            pushN("budget-c", "p", "c", k, 100);   // 600 hashes > 500: the index is dropped on the way
        }
        assertTrue(metric(EXHAUSTED) - exhausted >= 1, "the overflow is counted");
        double full = metric(FULL);
        JsonNode again = pushN("budget-c", "p", "c", 0, 100);   // the first 100 again, no index to vouch
        assertEquals(1, metric(FULL) - full, "probed in full in SQL");
        for (JsonNode item : again) {
            assertEquals("duplicate", item.path("status").asText(), item.toString());
        }
    }

    @Test
    void aQueueThatWentQuietGivesItsShareToABusyOneWithinASweepRound() {
        configure("budget-d", "{\"dedupWindowSeconds\":600}");
        configure("budget-e", "{\"dedupWindowSeconds\":600}");
        for (int k = 0; k < 400; k += 100) {
            pushN("budget-d", "p", "d", k, 100);   // budget-d's index holds 400 of the 500
        }
        fusion.sweepRound();   // nothing refused yet: nothing dropped; budget-d is not pushed to from here on
        double rebuilds = metric(REBUILDS);
        double exhausted = metric(EXHAUSTED);
        pushN("budget-e", "p", "e", 0, 100);     // cold, built (an empty window): 500 held
        pushN("budget-e", "p", "e", 100, 100);   // 600 > 500: budget-e's index is dropped and refused
        pushN("budget-e", "p", "e", 200, 100);   // refused in this round: not read from the sidecar again
        assertEquals(1, metric(REBUILDS) - rebuilds, "built once, not rebuilt within the round it was refused in");
        assertEquals(2, metric(EXHAUSTED) - exhausted, "refusals counted");
        assertEquals(400, metric(CACHED), "budget-d still holds its share");

        fusion.sweepRound();   // refusals since the previous round: budget-d, idle since then, gives its share back
        assertEquals(0, metric(CACHED), "hashes held after the round");
        double vouched = metric(VOUCHED);
        pushN("budget-e", "p", "e", 300, 100);   // rebuilt from the sidecar: 300 + 100 of the 500
        pushN("budget-e", "p", "e", 400, 100);
        assertEquals(1, metric(VOUCHED) - vouched, "vouched for again");
        JsonNode again = pushN("budget-e", "p", "e", 0, 100);   // inside the index: SQL finds the duplicates
        for (JsonNode item : again) {
            assertEquals("duplicate", item.path("status").asText(), item.toString());
        }
    }
}
