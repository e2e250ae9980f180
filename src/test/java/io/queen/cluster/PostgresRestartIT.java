package io.queen.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.StorageInvariants;
import io.queen.testing.TestPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL stops under a running broker and comes back: the broker answers clear errors meanwhile (a failed
 * push is reported, never silently dropped), recovers by itself, loses nothing that was acknowledged, and its
 * long polls are woken through a re-established LISTEN connection.
 */
class PostgresRestartIT {
    static EmbeddedPostgres startPg(Path dir, int port) throws Exception {
        return EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false).setPort(port).start();
    }

    static int listeners(int port) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/postgres", "postgres", "postgres"); java.sql.Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE query = 'LISTEN queen_push'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return CLIENT.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static void assertUnavailable(HttpResponse<String> r) {
        assertEquals(503, r.statusCode(), r.body());
        assertEquals("1", r.headers().firstValue("Retry-After").orElse(null), r.uri() + ": Retry-After");
        assertTrue(r.body().contains("\"error\""), r.body());
        for (String leak : new String[] {"FATAL", "ERROR:", "Connection", "SQL", "org.postgresql"}) {
            assertFalse(r.body().contains(leak), r.uri() + " leaks driver text: " + r.body());
        }
    }

    @Test
    void brokerSurvivesAPostgresRestart(@TempDir Path dir) throws Exception {
        int port = BrokerProcess.freePort();
        EmbeddedPostgres pg = startPg(dir, port);
        TestPostgres.Server server = new TestPostgres.Server("127.0.0.1", port, "postgres", "postgres");
        try (BrokerProcess a = BrokerProcess.start("restart-a", server, "postgres", Map.of());
                BrokerProcess b = BrokerProcess.start("restart-b", server, "postgres",
                        Map.of("POP_WAIT_MAX_INTERVAL_MS", "60000"))) {
            for (int i = 0; i < 3; i++) {
                assertEquals(201, Http.post(a.url(), "/api/v1/push", "{\"items\":[{\"queue\":\"rs\",\"transactionId\":\"before-"
                        + i + "\",\"payload\":{\"n\":" + i + "}}]}").status());
            }
            pg.close();
            // an unavailable database is a 503 with Retry-After (clients retry it) and no driver text
            HttpResponse<String> down = send(HttpRequest.newBuilder(URI.create(a.url() + "/api/v1/push"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"items\":[{\"queue\":\"rs\",\"transactionId\":\"during\",\"payload\":{\"n\":99}}]}")));
            assertUnavailable(down);
            assertUnavailable(send(HttpRequest.newBuilder(URI.create(a.url() + "/api/v1/dlq?queue=rs")).GET()));
            assertUnavailable(send(HttpRequest.newBuilder(URI.create(a.url() + "/api/v1/configure"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"queue\":\"rs2\"}"))));
            assertEquals(503, Http.get(a.url(), "/health").status());
            assertEquals(204, Http.get(a.url(), "/api/v1/pop/queue/rs/partition/Default?wait=false").status(),
                    "pop absorbs the outage: nothing, not a 5xx");
            long t0 = System.nanoTime();
            assertEquals(204, Http.get(a.url(), "/api/v1/pop/queue/rs/partition/Default?wait=true&timeout=2000")
                    .status());
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs < 3500, "a 2 s long poll during the outage answers within 3.5 s: " + tookMs + " ms");

            pg = startPg(dir, port);
            Await.within(() -> Http.get(a.url(), "/health").status() == 200, Duration.ofSeconds(30));
            assertEquals(200, Http.get(a.url(), "/health").status(), "the broker reconnects by itself");
            // the client retries the failed push with the same id: stored once
            Http.Reply retry = Http.post(a.url(), "/api/v1/push",
                    "{\"items\":[{\"queue\":\"rs\",\"transactionId\":\"during\",\"payload\":{\"n\":3}}]}");
            assertEquals(201, retry.status(), retry.body());

            // B's LISTEN connection died with the server: wait until both brokers listen again (their listener
            // connections show up in pg_stat_activity), then a push on A must wake B's long poll
            Await.within(() -> listeners(port) >= 2, Duration.ofSeconds(30));
            assertEquals(2, listeners(port), "both brokers LISTEN again");
            ExecutorService pool = Executors.newSingleThreadExecutor();
            List<Integer> got = new ArrayList<>();
            // B's pooled connections died with the server; its first pops may still meet a broken connection and
            // answer "nothing" (a pop never surfaces a 5xx), so poll until B delivers
            Http.Reply[] popped = new Http.Reply[1];
            Await.within(() -> (popped[0] = Http.get(b.url(), "/api/v1/pop/queue/rs/partition/Default?batch=10"))
                    .status() != 204, Duration.ofSeconds(30));
            Http.Reply first = popped[0];
            assertEquals(200, first.status(), "broker B serves pops again after the restart");
            JsonNode drained = Api.json(first.body());
            drained.get("messages").forEach(m -> got.add(m.get("data").get("n").asInt()));
            assertEquals(List.of(0, 1, 2, 3), got, "everything acknowledged before and after the outage is there");
            Http.Reply acked = Http.post(b.url(), "/api/v1/ack", "{\"transactionId\":\"during\",\"partitionId\":\""
                    + drained.get("partitionId").asText() + "\",\"leaseId\":\"" + drained.get("leaseId").asText() + "\"}");
            assertEquals(200, acked.status());
            Future<Http.Reply> parked = pool.submit(() -> Http.get(b.url(),
                    "/api/v1/pop/queue/rs/partition/Default?wait=true&timeout=30000"));
            Await.until("the long poll parked on B", () -> Api.samples(Http.get(b.url(), "/metrics/prometheus").body())
                    .getOrDefault("queen_pop_parked", 0.0) >= 1, Duration.ofSeconds(30));
            assertEquals(201, Http.post(a.url(), "/api/v1/push",
                    "{\"items\":[{\"queue\":\"rs\",\"transactionId\":\"after\",\"payload\":{\"n\":4}}]}").status());
            Http.Reply woken = parked.get();
            pool.shutdown();
            assertEquals(200, woken.status(), "woken through the re-established LISTEN");
            StorageInvariants.assertHold(server.jdbcUrl("postgres"), server.user(), server.password());
        } finally {
            pg.close();
        }
    }
}
