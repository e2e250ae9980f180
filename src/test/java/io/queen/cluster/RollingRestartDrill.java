package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import io.queen.testing.TestPostgres;
import io.queen.testing.VerifyingLoad;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Rolling restart: three brokers on one database under steady verifying load; each is stopped with SIGTERM and
 * replaced, one at a time. Nothing acknowledged is lost, nothing is stored twice, nothing is acked twice, and
 * every batch a stopped broker had leased (60 s leases) is consumed well within the lease time, i.e. the leases
 * were handed back. Not part of `./queen test` (about two minutes): run it with
 * {@code deploy/drills/rolling-restart.sh}.
 */
class RollingRestartDrill {
    private static final String QUEUE = "rolling";

    @Test
    void threeBrokersRestartedOneAtATimeUnderLoad() throws Exception {
        TestPostgres.Server pg = TestPostgres.server();
        String db = TestPostgres.createDatabase("rolling");
        AtomicReferenceArray<BrokerProcess> slots = new AtomicReferenceArray<>(3);
        try {
            for (int i = 0; i < 3; i++) {
                slots.set(i, BrokerProcess.start("rr-" + i, pg, db, Map.of()));
            }
            assertEquals(200, Http.post(slots.get(0).url(), "/api/v1/configure",
                    "{\"queue\":\"" + QUEUE + "\",\"options\":{\"leaseTime\":60,\"retryLimit\":100}}").status());
            long t0 = System.nanoTime();
            List<String> steps = new ArrayList<>();
            VerifyingLoad.Report report;
            try (VerifyingLoad load = new VerifyingLoad(QUEUE, 8, slots, 3, 3)) {
                Thread.sleep(5000);
                for (int i = 0; i < 3; i++) {
                    int before = load.acknowledgedSoFar();
                    long drainMs = slots.get(i).terminate(Duration.ofSeconds(40));
                    long s0 = System.nanoTime();
                    slots.set(i, BrokerProcess.start("rr-" + i, pg, db, Map.of()));
                    steps.add("broker " + i + ": SIGTERM to exit " + drainMs + " ms, replacement healthy after "
                            + (System.nanoTime() - s0) / 1_000_000 + " ms (" + (load.acknowledgedSoFar() - before)
                            + " pushes acknowledged meanwhile)");
                    Thread.sleep(3000);
                }
                Thread.sleep(2000);
                // 30 s < the 60 s lease: a batch still leased by a stopped broker would not be consumed in time
                report = load.finish(Duration.ofSeconds(30));
                if (report.lost() > 0) {
                    System.out.println("rolling restart: lost e.g. " + load.lostSample(5));
                }
            }
            long stored = count(pg, db, "SELECT COALESCE(sum(p.last_offset + 1), 0) FROM queen.log_partitions p"
                    + " JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + QUEUE + "'");
            steps.forEach(s -> System.out.println("rolling restart: " + s));
            System.out.println("rolling restart: " + report + "; " + stored + " messages stored; "
                    + (System.nanoTime() - t0) / 1_000_000_000 + " s under load");
            assertTrue(report.errors().isEmpty(), "client-visible errors: " + report.errors());
            assertTrue(report.acknowledged() > 20, "the load ran");
            assertEquals(0, report.lost(), "acknowledged but never consumed");
            assertEquals(0, report.ackedTwice(), "a message acked twice");
            assertEquals(report.acknowledged(), stored, "every acknowledged push stored exactly once");
            StorageInvariants.assertHold(pg.jdbcUrl(db), pg.user(), pg.password());
        } finally {
            for (int i = 0; i < 3; i++) {
                if (slots.get(i) != null) {
                    slots.get(i).close();
                }
            }
            TestPostgres.dropDatabase(db);
        }
    }

    static long count(TestPostgres.Server pg, String db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(db), pg.user(), pg.password());
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
