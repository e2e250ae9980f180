package io.queen.metrics;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.analytics.MetricsFlusher;
import io.queen.analytics.MetricsStore;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The backlog and lag gauges end to end: pending messages and the oldest pending age per queue, and each group's
 * lag in messages and seconds, after an explicit sample ({@link MetricsFlusher#sampleBacklogNow}); a group that
 * stopped popping keeps a lag that grows with what is pushed and with time.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class BacklogGaugesTest {
    @Inject
    MetricsFlusher flusher;
    @Inject
    MetricsStore store;
    @Inject
    AgroalDataSource ds;

    private static final String POP = "/api/v1/pop/queue/bl-g/partition/Default?subscriptionMode=all&batch=";

    @Test
    void pendingAndGroupLagFollowTheCursorsAndKeepGrowingWhenConsumersStop() throws Exception {
        pushN("bl-q", "p1", "a", 0, 5);
        pushN("bl-q", "p2", "b", 0, 3);
        ackAll(pop("/api/v1/pop/queue/bl-q/partition/p1?batch=2"), "completed", null);

        pushN("bl-g", "Default", "g", 0, 5);
        ackAll(pop(POP + "5&consumerGroup=g1"), "completed", "g1");
        ackAll(pop(POP + "2&consumerGroup=g2"), "completed", "g2");

        flusher.sampleBacklogNow();
        Map<String, Double> m = prometheus();
        assertEquals(6.0, m.get("queen_queue_pending_messages{queue=\"bl-q\"}"), "8 pushed, 2 consumed");
        assertTrue(m.get("queen_queue_oldest_pending_age_seconds{queue=\"bl-q\"}") > 0);
        assertEquals(0.0, m.get("queen_group_lag_messages{group=\"g1\",queue=\"bl-g\"}"), "g1 consumed all");
        assertEquals(0.0, m.get("queen_group_lag_seconds{group=\"g1\",queue=\"bl-g\"}"), "caught up");
        assertEquals(3.0, m.get("queen_group_lag_messages{group=\"g2\",queue=\"bl-g\"}"), "g2 consumed 2 of 5");
        double lag = m.get("queen_group_lag_seconds{group=\"g2\",queue=\"bl-g\"}");
        assertTrue(lag > 0, "g2 trails: " + lag);
        assertTrue(m.get("queen_backlog_sample_age_seconds") >= 0);

        Thread.sleep(50);
        assertTrue(prometheus().get("queen_group_lag_seconds{group=\"g2\",queue=\"bl-g\"}") > lag,
                "the stopped group's time lag grows between samples");

        pushN("bl-g", "Default", "g", 5, 4);  // nobody pops any more
        flusher.sampleBacklogNow();
        m = prometheus();
        assertEquals(7.0, m.get("queen_group_lag_messages{group=\"g2\",queue=\"bl-g\"}"));
        assertEquals(4.0, m.get("queen_group_lag_messages{group=\"g1\",queue=\"bl-g\"}"), "g1 stopped too");
        assertTrue(m.get("queen_group_lag_seconds{group=\"g2\",queue=\"bl-g\"}") > lag);
    }

    @Test
    void onlyTheDefaultTenantsQueuesAndGroupsAreNamedAndTheCapsSumTheRest() throws Exception {
        String other = "00000000-0000-0000-0000-0000000000aa";
        String mine = "00000000-0000-0000-0000-000000000001";
        Sql.exec(ds, "DELETE FROM queen.metrics_backlog");
        Sql.exec(ds, "INSERT INTO queen.metrics_backlog VALUES"
                + " ('" + other + "', 'secret', '', 5, now() - interval '10 s'),"
                + " ('" + other + "', 'secret', 'hidden', 5, now() - interval '10 s'),"
                + " ('" + mine + "', 'big', '', 9, now() - interval '20 s'),"
                + " ('" + mine + "', 'big', 'a', 9, now() - interval '20 s'),"
                + " ('" + mine + "', 'big', 'b', 1, now() - interval '5 s'),"
                + " ('" + mine + "', 'small', '', 1, NULL)");
        Map<String, BacklogFamilies.Row> rows = new HashMap<>();
        for (BacklogFamilies.Row r : store.backlog(UUID.fromString(mine), 1, 1).rows()) {
            rows.put(r.queue() + "/" + r.group(), r);
        }
        assertEquals(Set.of("big/", "big/a", "big/_other", "_other/", "_other/_other"), rows.keySet(),
                "one queue and one group named, the other tenant's never");
        assertEquals(6, rows.get("_other/").messages(), "small and the other tenant's queue");
        assertEquals(5, rows.get("_other/_other").messages(), "the other tenant's group");
        assertEquals(1, rows.get("big/_other").messages(), "b beyond the group cap");
        assertTrue(rows.get("big/a").ageSeconds() >= 20);
    }

    static Map<String, Double> prometheus() {
        return Api.samples(Http.get("/metrics/prometheus").body());
    }
}
