package io.queen.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.metrics.OpsMeter;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The two ways into the log, through {@link LogWriter}: what each completes, counts and leaves behind. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LogWriterTest {
    @Inject
    LogWriter writer;
    @Inject
    OpsMeter meter;
    @Inject
    AgroalDataSource ds;

    @Test
    void aFusedWriteCompletesEveryVerdictWhenItsLaneFailsAndCountsOnlyWhatReachedTheLog() throws Exception {
        UUID tenant = UUID.randomUUID();
        LogWriter.Lane lane = new LogWriter.Lane(tenant, "lw-fused", "lw-boom", items("lw-fused", "lw-boom", "f", 2));
        Sql.exec(ds, """
                CREATE OR REPLACE FUNCTION queen.test_fail_lw() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF (SELECT name FROM queen.log_partitions WHERE id = NEW.partition_id) = 'lw-boom' THEN
                    RAISE EXCEPTION 'injected failure';
                  END IF;
                  RETURN NEW;
                END $$;
                CREATE TRIGGER test_fail_lw BEFORE INSERT ON queen.log_txns FOR EACH ROW
                  EXECUTE FUNCTION queen.test_fail_lw();""");
        try (ExecutorService runner = Executors.newVirtualThreadPerTaskExecutor()) {
            LogWriter.Produced produced = writer.produce(List.of(lane), runner);
            produced.counted().get(30, TimeUnit.SECONDS);
            for (PushFusion.Verdict v : produced.verdicts().get(0).getNow(null)) {
                assertEquals(PushFusion.Status.FAILED, v.status());
            }
            assertNotNull(writer.replay(List.of(lane)), "a replay that failed says why");
        } finally {
            Sql.exec(ds, "DROP TRIGGER test_fail_lw ON queen.log_txns");
        }
        assertEquals(0, count(tenant, "lw-fused", OpsMeter.PUSH_REQUESTS), "a failed Kafka batch is no request");
        assertEquals(0, count(tenant, "lw-fused", OpsMeter.PUSH_MESSAGES));
        assertNull(writer.replay(List.of(lane)), "every item is in the log");
        assertEquals(2, count(tenant, "lw-fused", OpsMeter.PUSH_MESSAGES));
        assertNull(writer.replay(List.of(lane)), "duplicates of what is in the log are in the log");
        assertEquals(2, count(tenant, "lw-fused", OpsMeter.PUSH_MESSAGES), "duplicates are not counted");
    }

    @Test
    void aCallersTransactionIsCountedOnlyOnceCommittedAndOnlyForWhatItWrote() throws Exception {
        UUID tenant = UUID.randomUUID();
        List<PushItem> items = items("lw-txn", "p", "t", 3);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                writer.inTransaction(c, tenant).write(List.of(items));
                c.rollback();   // dropped: its after-commit work never runs
                assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.queues WHERE name = 'lw-txn'"),
                        "the queue it provisioned rolled back with it");

                LogWriter.InTransaction log = writer.inTransaction(c, tenant);
                PushStore.SegmentResult[] written = log.write(List.of(items));
                c.commit();
                assertFalse(written[0].duplicate());
                assertEquals(List.of("lw-txn"), log.queues());
                assertEquals(0, count(tenant, "lw-txn", OpsMeter.PUSH_MESSAGES), "not before committed()");
                log.committed();
                assertEquals(3, count(tenant, "lw-txn", OpsMeter.PUSH_MESSAGES));

                LogWriter.InTransaction again = writer.inTransaction(c, tenant);
                assertTrue(again.write(List.of(items))[0].duplicate());
                c.commit();
                again.committed();
                assertEquals(List.of(), again.queues(), "a duplicate segment wrote nothing");
                assertEquals(3, count(tenant, "lw-txn", OpsMeter.PUSH_MESSAGES));
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private long count(UUID tenant, String queue, int counter) {
        return meter.queue(tenant, queue).cumulative()[counter];
    }

    private static List<PushItem> items(String queue, String partition, String prefix, int n) {
        List<PushItem> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String txn = prefix + "-" + i;
            out.add(new PushItem(i, queue, partition, txn, txn.getBytes(StandardCharsets.UTF_8), null,
                    UUID.randomUUID(), ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), false));
        }
        return out;
    }
}
