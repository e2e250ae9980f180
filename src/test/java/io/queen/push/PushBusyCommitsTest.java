package io.queen.push;

import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A busy broker (queen.push.busy-commits) lets partitions that become ready while their shard has a commit in flight
 * wait for it and share the next commit. Busy from one commit, one shard, and a hold limit that never passes here,
 * so what waits is decided by a row lock the test holds, not by timing.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.push.busy-commits", value = "1"),
        @ResourceArg(name = "queen.push.fusion-shards", value = "1"),
        @ResourceArg(name = "queen.push.commit-hold-ms", value = "600000")})
class PushBusyCommitsTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void partitionsReadyWhileTheBrokerIsBusyShareTheNextCommit() throws Exception {
        pushN("slots", "p0", "w", 0, 1);
        double commits = metric("queen_push_commits_total");
        double segments = metric("queen_push_segments_total");
        ExecutorService pool = Executors.newFixedThreadPool(9);
        Future<JsonNode> stalled;
        List<Future<JsonNode>> waiting = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SELECT 1 FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id"
                    + " WHERE q.name = 'slots' AND lp.name = 'p0' FOR UPDATE OF lp");
            stalled = pool.submit(() -> pushN("slots", "p0", "w", 1, 1));
            Await.until("the push to p0 waits on its row", () -> Sql.count(ds,
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND wait_event_type = 'Lock' AND query LIKE '%log_push_multi_v1%'") == 1,
                    Duration.ofSeconds(60));
            for (int i = 1; i <= 8; i++) {
                String partition = "p" + i;
                waiting.add(pool.submit(() -> pushN("slots", partition, "w", 0, 5)));
            }
            Await.until("8 partitions wait for the commit in flight", () -> metric("queen_push_partitions_ready") == 8,
                    Duration.ofSeconds(60));
            for (Future<JsonNode> f : waiting) {
                assertFalse(f.isDone(), "nothing else commits while the broker is busy");
            }
            c.rollback();
        }
        assertEquals("queued", stalled.get(60, TimeUnit.SECONDS).get(0).path("status").asText());
        for (Future<JsonNode> f : waiting) {
            for (JsonNode item : f.get(60, TimeUnit.SECONDS)) {
                assertEquals("queued", item.path("status").asText(), item.toString());
            }
        }
        pool.shutdown();
        assertEquals(9, metric("queen_push_segments_total") - segments, "segments");
        assertEquals(2, metric("queen_push_commits_total") - commits, "p0's commit, then one for the 8 waiting");
        assertEquals(0, metric("queen_push_partitions_ready"));
        assertEquals(0, metric("queen_push_commits_overdue_total"));
    }
}
