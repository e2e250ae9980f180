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
import org.junit.jupiter.api.Test;

/**
 * The broker-side dedup indexes share one budget of hashes: a deleted queue must give its share back at once, or
 * the next queue's pushes lose their index (every push probing its whole window in SQL).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.push.dedup-cache-entries", value = "500")})
class DedupBudgetTest {
    static final String VOUCHED = "queen_push_dedup_vouched_total";
    static final String FULL = "queen_push_dedup_full_probes_total";
    static final String EXHAUSTED = "queen_push_dedup_budget_exhausted_total";

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
}
