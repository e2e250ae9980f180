package io.queen.analytics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.retention.RetentionCycle;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The retention loop purges metric rows older than {@code queen.metrics.retention-days} (7 by default) in bounded
 * steps and keeps the rest (queue depth samples included); the cluster totals are not lowered by a purge.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class MetricsPurgeTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;

    @Test
    void rowsOlderThanTheRetentionDaysAreDeletedByTheRetentionCycle() throws Exception {
        // 3,000 queue rows and 1,500 broker rows from 8 days ago, 60 + 30 from 6 days ago
        for (String age : new String[] {"8 days", "6 days"}) {
            int minutes = age.startsWith("8") ? 1500 : 30;
            Sql.exec(ds, "INSERT INTO queen.metrics_queue_minute (bucket, hostname, worker_id, tenant_id, queue_name,"
                    + " push_messages) SELECT date_trunc('minute', now() - interval '" + age + "') - g * interval"
                    + " '1 minute', 'h', 1, '00000000-0000-0000-0000-000000000001', q, 1 FROM generate_series(0, " + (minutes - 1) + ") g,"
                    + " (VALUES ('a'), ('b')) v(q)");
            Sql.exec(ds, "INSERT INTO queen.metrics_broker_minute (bucket, hostname, worker_id, push_messages)"
                    + " SELECT date_trunc('minute', now() - interval '" + age + "') - g * interval '1 minute', 'h',"
                    + " 1, 2 FROM generate_series(0, " + (minutes - 1) + ") g");
        }
        // queue depth samples: 100 minutes from 8 days ago, 5 from 6 days ago, one queue each
        for (String age : new String[] {"8 days", "6 days"}) {
            int minutes = age.startsWith("8") ? 100 : 5;
            String minute = "date_trunc('minute', now() - interval '" + age + "') - g * interval '1 minute'";
            Sql.exec(ds, "INSERT INTO queen.metrics_depth_samples (bucket, sampled_at) SELECT " + minute + ", "
                    + minute + " FROM generate_series(0, " + (minutes - 1) + ") g");
            Sql.exec(ds, "INSERT INTO queen.metrics_depth_minute (bucket, tenant_id, queue_name, pending, dead_letters)"
                    + " SELECT " + minute + ", '00000000-0000-0000-0000-000000000001', 'a', 3, 1"
                    + " FROM generate_series(0, " + (minutes - 1) + ") g");
        }
        Sql.exec(ds, "UPDATE queen.metrics_cluster_totals SET push_messages = 42");
        RetentionCycle.Report r = cycle.runOnce(Instant.now());
        assertEquals(4700, r.metricRowsPurged(), "batch 1,000 x 10 steps covers it in one cycle");
        assertEquals(5, Sql.count(ds, "SELECT count(*) FROM queen.metrics_depth_samples"));
        assertEquals(5, Sql.count(ds, "SELECT count(*) FROM queen.metrics_depth_minute"));
        assertEquals(60, Sql.count(ds, "SELECT count(*) FROM queen.metrics_queue_minute"));
        assertEquals(30, Sql.count(ds, "SELECT count(*) FROM queen.metrics_broker_minute"));
        assertTrue(Sql.count(ds, "SELECT count(*) FROM queen.metrics_queue_minute WHERE bucket < now() - interval"
                + " '7 days'") == 0);
        assertEquals(42, Sql.count(ds, "SELECT push_messages FROM queen.metrics_cluster_totals"));
        assertEquals(0, cycle.runOnce(Instant.now()).metricRowsPurged(), "nothing left: one probe per table");
    }
}
