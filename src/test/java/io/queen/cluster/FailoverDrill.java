package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.TestPostgres;
import io.queen.testing.VerifyingLoad;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * PostgreSQL failover under verifying load: two brokers on a pg_auto_failover cluster (synchronous replication),
 * given every node through {@code PG_HOSTS}; the primary is killed with -9 ({@code QUEEN_FAILOVER_KILL}). Every
 * push answered 201 is found afterwards (stored exactly once, consumed), pops resume; the time to recover is
 * measured. Needs the cluster that {@code deploy/drills/failover.sh} sets up and passes in
 * {@code QUEEN_FAILOVER_HOSTS}, {@code QUEEN_FAILOVER_DB}, {@code QUEEN_FAILOVER_KILL}.
 */
@EnabledIfEnvironmentVariable(named = "QUEEN_FAILOVER_HOSTS", matches = ".+")
class FailoverDrill {
    private static final String QUEUE = "failover";

    @Test
    void primaryKilledUnderLoadLosesNothingAcknowledged() throws Exception {
        String hosts = System.getenv("QUEEN_FAILOVER_HOSTS");
        String db = System.getenv("QUEEN_FAILOVER_DB");
        String kill = System.getenv("QUEEN_FAILOVER_KILL");
        String[] first = hosts.split(",")[0].split(":");
        TestPostgres.Server pg = new TestPostgres.Server(first[0], Integer.parseInt(first[1]), "postgres", "postgres");
        Map<String, String> env = Map.of("PG_HOSTS", hosts);
        AtomicReferenceArray<BrokerProcess> slots = new AtomicReferenceArray<>(2);
        try {
            slots.set(0, BrokerProcess.start("fo-a", pg, db, env));
            slots.set(1, BrokerProcess.start("fo-b", pg, db, env));
            // short leases: a batch whose ack failed during the failover comes back within the drill
            assertEquals(200, Http.post(slots.get(0).url(), "/api/v1/configure",
                    "{\"queue\":\"" + QUEUE + "\",\"options\":{\"leaseTime\":10,\"retryLimit\":100}}").status());
            VerifyingLoad.Report report;
            long killedAt;
            long pushBack;
            long popBack;
            int before;
            try (VerifyingLoad load = new VerifyingLoad(QUEUE, 8, slots, 3, 3)) {
                Thread.sleep(6000);
                before = load.acknowledgedSoFar();
                load.tolerateUnavailable(true);
                Process p = new ProcessBuilder("bash", "-c", kill).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes()).strip();
                assertEquals(0, p.waitFor(), out);
                // from here on the old primary is gone: a request sent later can only succeed on the new one
                killedAt = System.nanoTime();
                System.out.println("failover: " + out);
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while ((load.firstPushAnsweredAfter(killedAt) < 0 || load.firstPopDeliveredAfter(killedAt) < 0)
                        && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                pushBack = load.firstPushAnsweredAfter(killedAt);
                popBack = load.firstPopDeliveredAfter(killedAt);
                Thread.sleep(5000);
                report = load.finish(Duration.ofSeconds(60));
                if (report.lost() > 0) {
                    System.out.println("failover: lost e.g. " + load.lostSample(5));
                }
            }
            long stored;
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + hosts + "/" + db
                    + "?targetServerType=primary", pg.user(), pg.password());
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COALESCE(sum(p.last_offset + 1), 0) FROM queen.log_partitions p"
                            + " JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + QUEUE + "'")) {
                rs.next();
                stored = rs.getLong(1);
            }
            System.out.println("failover: " + before + " pushes acknowledged before the kill; writes back "
                    + ms(pushBack, killedAt) + " ms after it, pops delivering again " + ms(popBack, killedAt) + " ms after it");
            System.out.println("failover: " + report + "; acknowledged " + report.acknowledged() + " vs found "
                    + stored + " stored / " + report.consumed() + " consumed");
            assertTrue(pushBack > 0 && popBack > 0, "the brokers recovered within 120 s");
            assertTrue(report.errors().isEmpty(), "client-visible errors: " + report.errors());
            assertEquals(0, report.lost(), "acknowledged but not found after the failover");
            assertEquals(report.acknowledged(), stored, "every acknowledged push stored exactly once");
            assertEquals(0, report.ackedTwice());
        } finally {
            for (int i = 0; i < 2; i++) {
                if (slots.get(i) != null) {
                    slots.get(i).close();
                }
            }
        }
    }

    private static String ms(long at, long from) {
        return at < 0 ? "never" : String.valueOf((at - from) / 1_000_000);
    }
}
