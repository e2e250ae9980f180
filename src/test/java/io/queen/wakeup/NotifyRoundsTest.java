package io.queen.wakeup;

import static io.queen.testing.Api.pushN;
import static io.queen.testing.Popped.ns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** Commits announced to other brokers: NOTIFY rounds spaced by the interval, none when nobody listens. */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class NotifyRoundsTest {
    @Inject
    AgroalDataSource ds;

    /**
     * Commits announced to other brokers are coalesced into NOTIFY rounds at least QUEEN_NOTIFY_INTERVAL_MS (10 ms)
     * apart: back-to-back pushes cannot produce more rounds than the elapsed time allows.
     */
    @Test
    void notifyRoundsAreSpacedByTheInterval() throws Exception {
        // another broker's LISTEN connection, as wakeup.WakeListener opens it (the name is how brokers find each other)
        try (Connection peer = ds.getConnection(); Statement st = peer.createStatement()) {
            st.execute("SET application_name = 'queen-listen'");
            st.execute("LISTEN queen_push");
            // the publisher trusts its last count of listeners for 250 ms: pushes announce once it has counted this one
            Await.until("a commit announced to the listening peer", () -> {
                double seen = Api.metric("queen_pop_notify_rounds_total");
                pushN("notify-spacing-warm", "P", "w" + System.nanoTime(), 0, 1);
                return Api.metric("queen_pop_notify_rounds_total") > seen;
            }, Duration.ofSeconds(10));
            double before = Api.metric("queen_pop_notify_rounds_total");
            long started = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                pushN("notify-spacing", "P" + (i % 3), "ns" + i, 0, 1);
            }
            double elapsedMs = (System.nanoTime() - started) / 1e6;
            Await.within(() -> Api.metric("queen_pop_notify_rounds_total") > before, Duration.ofSeconds(2));
            double rounds = Api.metric("queen_pop_notify_rounds_total") - before;
            assertTrue(rounds >= 1, "the commits were announced");
            assertTrue(rounds <= elapsedMs / 10 + 2, rounds + " rounds in " + elapsedMs + " ms");
            Set<String> heard = new HashSet<>();
            PGConnection pg = peer.unwrap(PGConnection.class);
            for (int i = 0; i < 20 && heard.stream().noneMatch(k -> k.endsWith("/notify-spacing")); i++) {
                PGNotification[] got = pg.getNotifications(100);
                if (got != null) {
                    for (PGNotification n : got) {
                        heard.add(n.getParameter());
                    }
                }
            }
            assertTrue(heard.stream().anyMatch(k -> k.endsWith("/notify-spacing")), "the peer heard " + heard);
            st.execute("UNLISTEN *");
            st.execute("RESET application_name");
        }
    }

    /** With no other broker listening on the database, commits are not announced at all. */
    @Test
    void noNotifyRoundsWhenNoOtherBrokerListens() throws Exception {
        // wait out a listener count made while another test's peer connection was open (trusted 250 ms)
        double skippedFirst = Api.metric("queen_pop_notify_skipped_total");
        Await.within(() -> {
            pushN("notify-alone", "P", "wait" + System.nanoTime(), 0, 1);
            return Api.metric("queen_pop_notify_skipped_total") > skippedFirst;
        }, Duration.ofSeconds(2));
        assertTrue(Api.metric("queen_pop_notify_skipped_total") > skippedFirst, "rounds are skipped");
        double rounds = Api.metric("queen_pop_notify_rounds_total");
        double skipped = Api.metric("queen_pop_notify_skipped_total");
        for (int i = 0; i < 20; i++) {
            pushN("notify-alone", "P" + (i % 3), "na" + i, 0, 1);
        }
        Await.within(() -> Api.metric("queen_pop_notify_skipped_total") > skipped, Duration.ofSeconds(2));
        assertEquals(rounds, Api.metric("queen_pop_notify_rounds_total"), "no NOTIFY with nobody listening");
        assertTrue(Api.metric("queen_pop_notify_skipped_total") > skipped);
    }
}
