package io.queen.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The real scheduler, at a short interval, with 4 workers and 2-row steps: data past its retention disappears from
 * every partition without anyone calling a cycle.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.retention.interval-ms", value = "200"),
        @ResourceArg(name = "queen.retention.parallelism", value = "4"),
        @ResourceArg(name = "queen.retention.batch-size", value = "2")})
class RetentionSchedulerTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void theSchedulerDeletesExpiredSegments() throws Exception {
        Api.configure("r-sched", "{\"retentionEnabled\":true,\"retentionSeconds\":1}");
        for (int i = 0; i < 5; i++) {
            for (String p : new String[] {"Default", "A", "B", "C", "D", "E"}) {
                assertEquals(201, Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"r-sched\",\"partition\":\"" + p
                        + "\",\"payload\":" + i + "}]}").status());
            }
        }
        String count = "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions p ON p.id = s.partition_id"
                + " JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'r-sched'";
        assertEquals(30, Sql.count(ds, "SELECT sum(p.last_offset + 1) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'r-sched'"), "everything was pushed");
        Await.within(() -> Sql.count(ds, count) == 0, Duration.ofSeconds(15));
        assertEquals(0, Sql.count(ds, count), "the scheduled cycles deleted every expired segment");
        assertEquals(6, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'r-sched' AND p.log_start = 5 AND p.oldest_live_at IS NULL"));
    }
}
