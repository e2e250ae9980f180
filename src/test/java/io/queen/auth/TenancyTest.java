package io.queen.auth;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.analytics.MetricsFlusher;
import jakarta.inject.Inject;
import java.time.Instant;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two tenants (two tokens with different {@code tenant} claims) use the same queue, partition, group and
 * transaction ids: neither sees the other's messages, cursors, leases or dead letters, and every id-addressed
 * route answers the other tenant's ids exactly as it answers ids that do not exist.
 */
@QuarkusTest
@TestProfile(JwtProfile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TenancyTest {
    @Inject
    MetricsFlusher flusher;
    static final String A = Tokens.token("alice", "admin", "acme");
    static final String B = Tokens.token("bob", "admin", "globex");
    static final String Q = "shared";
    static final String P = "p1";
    static final String G = "g1";

    static void push(String token, String who, int n) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < n; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(Q).append("\",\"partition\":\"").append(P)
                    .append("\",\"transactionId\":\"t-").append(i).append("\",\"payload\":{\"who\":\"").append(who)
                    .append("\",\"i\":").append(i).append("}}");
        }
        Http.Reply r = Tokens.post(token, "/api/v1/push", "{\"items\":[" + items + "]}");
        assertEquals(201, r.status(), r.body());
        for (JsonNode it : json(r.body())) {
            assertEquals("queued", it.get("status").asText(), r.body());  // same ids, other tenant: no dedup hit
        }
    }

    static List<JsonNode> pop(String token, String path) {
        Http.Reply r = Tokens.get(token, path);
        List<JsonNode> out = new ArrayList<>();
        if (r.status() == 204) {
            return out;
        }
        assertEquals(200, r.status(), r.body());
        json(r.body()).get("messages").forEach(out::add);
        return out;
    }

    static void assertAllFrom(String who, List<JsonNode> messages) {
        for (JsonNode m : messages) {
            assertEquals(who, m.get("data").get("who").asText(), m.toString());
        }
    }

    static String ack(String pid, String txn, String lease, String status) {
        return "{\"transactionId\":\"" + txn + "\",\"partitionId\":\"" + pid + "\",\"leaseId\":\"" + lease
                + "\",\"status\":\"" + status + "\",\"consumerGroup\":\"" + G + "\"}";
    }

    /** B's answer for A's id must be B's answer for an id that does not exist. */
    static void assertSameAsMissing(Http.Reply foreign, Http.Reply missing, String foreignId, String missingId) {
        assertEquals(missing.status(), foreign.status(), foreign.body());
        assertEquals(missing.body().replace(missingId, "<id>"), foreign.body().replace(foreignId, "<id>"));
    }

    @Test
    void tenantsNeverSeeEachOther() {
        push(A, "a", 4);
        push(B, "b", 3);
        // stats: each tenant's views count its own messages only
        assertEquals(4, json(Tokens.get(A, "/api/v1/resources/queues/" + Q).body()).get("totals").get("total").asLong());
        assertEquals(3, json(Tokens.get(B, "/api/v1/resources/queues/" + Q).body()).get("totals").get("total").asLong());
        assertEquals(3, json(Tokens.get(B, "/api/v1/status/queues").body()).get("queues").get(0).get("messages")
                .get("total").asLong());

        List<JsonNode> popA = pop(A, "/api/v1/pop/queue/" + Q + "/partition/" + P + "?batch=100&consumerGroup=" + G);
        List<JsonNode> popB = pop(B, "/api/v1/pop/queue/" + Q + "?batch=100&consumerGroup=" + G);
        assertEquals(4, popA.size());
        assertEquals(3, popB.size());
        assertAllFrom("a", popA);
        assertAllFrom("b", popB);
        String pidA = popA.get(0).get("partitionId").asText();
        String leaseA = popA.get(0).get("leaseId").asText();
        String leaseB = popB.get(0).get("leaseId").asText();
        assertNotEquals(pidA, popB.get(0).get("partitionId").asText());
        // queue mode too: each tenant's own messages only
        assertAllFrom("a", pop(A, "/api/v1/pop/queue/" + Q + "?batch=100"));
        assertAllFrom("b", pop(B, "/api/v1/pop/queue/" + Q + "?batch=100"));

        // browse and fetch read only the caller's log
        JsonNode browseA = json(Tokens.get(A, "/api/v1/messages?queue=" + Q).body()).get("messages");
        JsonNode browseB = json(Tokens.get(B, "/api/v1/messages?queue=" + Q).body()).get("messages");
        assertEquals(4, browseA.size());
        assertEquals(3, browseB.size());
        String fetch = "{\"entries\":[{\"queue\":\"" + Q + "\",\"partition\":\"" + P
                + "\",\"offset\":0,\"maxBytes\":1000000}]}";
        JsonNode recordsB = json(Tokens.post(B, "/api/v1/fetch", fetch).body()).get("entries").get(0).get("records");
        assertEquals(3, recordsB.size());
        recordsB.forEach(r -> assertEquals("b", r.get("payload").get("who").asText()));

        // B acks with A's partition id (and even A's lease): the answer of an unknown partition, nothing moves
        String missingPid = UUID.randomUUID().toString();
        assertSameAsMissing(Tokens.post(B, "/api/v1/ack", ack(pidA, "t-0", leaseA, "completed")),
                Tokens.post(B, "/api/v1/ack", ack(missingPid, "t-0", leaseA, "completed")), pidA, missingPid);
        assertSameAsMissing(Tokens.post(B, "/api/v1/ack/batch", "{\"acknowledgments\":[" + ack(pidA, "t-1", leaseA,
                        "failed") + "],\"consumerGroup\":\"" + G + "\"}"),
                Tokens.post(B, "/api/v1/ack/batch", "{\"acknowledgments\":[" + ack(missingPid, "t-1", leaseA,
                        "failed") + "],\"consumerGroup\":\"" + G + "\"}"), pidA, missingPid);
        JsonNode txn = json(Tokens.post(B, "/api/v1/transaction", "{\"operations\":[{\"type\":\"ack\","
                + "\"transactionId\":\"t-0\",\"partitionId\":\"" + pidA + "\",\"consumerGroup\":\"" + G + "\"}]}").body());
        assertFalse(txn.get("success").asBoolean(), txn.toString());
        // B's lease-extend of A's lease: not found; A's own: renewed
        assertSameAsMissing(Tokens.post(B, "/api/v1/lease/" + leaseA + "/extend", "{}"),
                Tokens.post(B, "/api/v1/lease/" + UUID.randomUUID() + "/extend", "{}"), leaseA, "x");
        assertEquals(404, Tokens.post(B, "/api/v1/lease/" + leaseA + "/extend", "{}").status());
        assertEquals(200, Tokens.post(A, "/api/v1/lease/" + leaseA + "/extend", "{}").status());
        assertEquals(200, Tokens.post(B, "/api/v1/lease/" + leaseB + "/extend", "{}").status());
        // a seek on a queue or partition B does not have answers 404 (B's shared name exists until deleted below)
        String other = "only-in-acme";
        assertEquals(201, Tokens.post(A, "/api/v1/push", "{\"items\":[{\"queue\":\"" + other
                + "\",\"payload\":1}]}").status());
        assertSameAsMissing(Tokens.post(B, "/api/v1/consumer-groups/" + G + "/queues/" + other + "/seek",
                        "{\"toEnd\":true}"),
                Tokens.post(B, "/api/v1/consumer-groups/" + G + "/queues/no-such-queue/seek", "{\"toEnd\":true}"),
                other, "no-such-queue");
        Http.Reply foreignSeek = Tokens.post(B, "/api/v1/consumer-groups/" + G + "/queues/" + other + "/seek",
                "{\"toEnd\":true}");
        assertEquals(404, foreignSeek.status(), foreignSeek.body());
        assertEquals("{\"success\":false,\"error\":\"Queue not found\"}", foreignSeek.body());
        assertEquals(404, Tokens.post(B, "/api/v1/consumer-groups/" + G + "/queues/" + other
                + "/partitions/Default/seek", "").status());
        assertEquals(200, Tokens.post(A, "/api/v1/consumer-groups/" + G + "/queues/" + other + "/seek",
                "{\"toEnd\":true}").status());
        // B's admin deletes its own group on the shared name; A's cursor and lease are untouched
        assertEquals(200, Tokens.delete(B, "/api/v1/consumer-groups/" + G + "/queues/" + Q).status());

        // A dead-letters t-3 and completes t-0..t-2 under its lease: all succeed, so nothing of A moved
        JsonNode acksA = json(Tokens.post(A, "/api/v1/ack/batch", "{\"acknowledgments\":[" + ack(pidA, "t-0", leaseA,
                "completed") + "," + ack(pidA, "t-1", leaseA, "completed") + "," + ack(pidA, "t-2", leaseA,
                "completed") + "," + ack(pidA, "t-3", leaseA, "dlq") + "],\"consumerGroup\":\"" + G + "\"}").body());
        for (JsonNode r : acksA) {
            assertTrue(r.get("success").asBoolean(), acksA.toString());
        }
        assertTrue(pop(A, "/api/v1/pop/queue/" + Q + "?batch=100&consumerGroup=" + G).isEmpty());

        // dead letters: A sees its one, B none
        JsonNode dlqA = json(Tokens.get(A, "/api/v1/dlq?queue=" + Q).body());
        assertEquals(1, dlqA.get("total").asInt(), dlqA.toString());
        assertEquals(0, json(Tokens.get(B, "/api/v1/dlq?queue=" + Q).body()).get("total").asInt());
        assertEquals(0, json(Tokens.get(B, "/api/v1/dlq").body()).get("total").asInt());
        String dlqId = dlqA.get("messages").get(0).get("id").asText();

        // every id-addressed read or write of B on A's ids answers like a missing id
        String missingDlq = UUID.randomUUID().toString();
        assertSameAsMissing(Tokens.get(B, "/api/v1/messages/" + pidA + "/t-0"),
                Tokens.get(B, "/api/v1/messages/" + missingPid + "/t-0"), pidA, missingPid);
        assertSameAsMissing(Tokens.delete(B, "/api/v1/messages/" + pidA + "/t-3"),
                Tokens.delete(B, "/api/v1/messages/" + missingPid + "/t-3"), pidA, missingPid);
        assertSameAsMissing(Tokens.post(B, "/api/v1/messages/" + pidA + "/t-3/retry", "{}"),
                Tokens.post(B, "/api/v1/messages/" + missingPid + "/t-3/retry", "{}"), pidA, missingPid);
        assertSameAsMissing(Tokens.post(B, "/api/v1/dlq/" + dlqId + "/replay", "{}"),
                Tokens.post(B, "/api/v1/dlq/" + missingDlq + "/replay", "{}"), dlqId, missingDlq);
        assertEquals(404, Tokens.get(B, "/api/v1/messages/" + pidA + "/t-0").status());
        assertSameAsMissing(Tokens.get(B, "/api/v1/messages/" + pidA + "/t-0/groups"),
                Tokens.get(B, "/api/v1/messages/" + missingPid + "/t-0/groups"), pidA, missingPid);
        // B's bulk actions over every dead letter it has (no filter) see, replay and delete none of A's
        assertEquals(0, json(Tokens.get(B, "/api/v1/dlq/count").body()).get("count").asInt());
        assertEquals(0, json(Tokens.post(B, "/api/v1/dlq/replay", "{}").body()).get("visited").asInt());
        assertEquals(0, json(Tokens.post(B, "/api/v1/dlq/delete", "{}").body()).get("deleted").asInt());
        assertEquals(1, json(Tokens.get(A, "/api/v1/dlq/count?queue=" + Q).body()).get("count").asInt());
        // ... and A's own ids still work
        assertEquals(200, Tokens.get(A, "/api/v1/messages/" + pidA + "/t-0").status());
        assertEquals(1, json(Tokens.get(A, "/api/v1/dlq?queue=" + Q).body()).get("total").asInt());
        Http.Reply replay = Tokens.post(A, "/api/v1/dlq/" + dlqId + "/replay", "{}");
        assertEquals(200, replay.status(), replay.body());

        // traces: A's trace on its message is invisible to B, by message, by name and in the names summary
        String trace = "{\"partitionId\":\"" + pidA + "\",\"transactionId\":\"t-0\",\"data\":{\"k\":1},"
                + "\"traceNames\":[\"tenant-trace\"]}";
        assertEquals(201, Tokens.post(A, "/api/v1/traces", trace).status());
        assertEquals(404, Tokens.post(B, "/api/v1/traces", trace).status(), "B cannot trace A's message");
        assertEquals(1, json(Tokens.get(A, "/api/v1/traces/" + pidA + "/t-0").body()).get("traces").size());
        assertEquals(0, json(Tokens.get(B, "/api/v1/traces/" + pidA + "/t-0").body()).get("traces").size());
        assertEquals(1, json(Tokens.get(A, "/api/v1/traces/by-name/tenant-trace").body()).get("total").asLong());
        assertEquals(0, json(Tokens.get(B, "/api/v1/traces/by-name/tenant-trace").body()).get("total").asLong());
        assertEquals(0, json(Tokens.get(B, "/api/v1/traces/names").body()).get("total").asLong());

        // per-minute metrics: each tenant's series count its own traffic on the shared name only; broker-wide
        // views (every tenant's traffic, the brokers' processes, the shared database) are the default tenant's
        assertTrue(flusher.flushNow() >= 2, "one row per (tenant, queue)");
        String range = "from=" + Instant.now().minusSeconds(600) + "&to=" + Instant.now().plusSeconds(60);
        JsonNode opsA = json(Tokens.get(A, "/api/v1/analytics/queue-ops?queue=" + Q + "&" + range).body());
        JsonNode opsB = json(Tokens.get(B, "/api/v1/analytics/queue-ops?queue=" + Q + "&" + range).body());
        assertEquals(1, opsA.get("queues").size(), opsA.toString());
        // A: 4 pushed and the replayed dead letter written back
        assertEquals(5, opsA.get("queues").get(0).get("pushMessages").asLong(), opsA.toString());
        assertEquals(3, opsB.get("queues").get(0).get("pushMessages").asLong(), opsB.toString());
        assertEquals(5, sumMessages(json(Tokens.get(A, "/api/v1/status/analytics?interval=minute&queue=" + Q + "&"
                + range).body())));
        assertEquals(3, sumMessages(json(Tokens.get(B, "/api/v1/status/analytics?interval=minute&queue=" + Q + "&"
                + range).body())));
        for (String route : new String[] {"system-metrics", "worker-metrics", "postgres-stats"}) {
            Http.Reply r = Tokens.get(B, "/api/v1/analytics/" + route);
            assertEquals(403, r.status(), route + ": " + r.body());
            assertTrue(r.body().contains("default tenant"), r.body());
            // postgres-stats shows other sessions' statements: admins only
            String role = route.equals("postgres-stats") ? "admin" : "read-only";
            assertEquals(200, Tokens.get(Tokens.token("ops", role, null), "/api/v1/analytics/" + route)
                    .status(), route);
        }

        // B's deleted group starts over on B's messages only
        assertAllFrom("b", pop(B, "/api/v1/pop/queue/" + Q + "?batch=100&consumerGroup=" + G));
        // deleting the queue in B leaves A's queue
        assertEquals(200, Tokens.delete(B, "/api/v1/resources/queues/" + Q).status());
        assertEquals(5, json(Tokens.get(A, "/api/v1/messages?queue=" + Q).body()).get("messages").size());

        // metrics carry no queue names (no queue labels at all)
        assertFalse(Tokens.get(null, "/metrics/prometheus").body().contains(Q));
    }

    static long sumMessages(JsonNode analytics) {
        long n = 0;
        for (JsonNode p : analytics.get("dataPoints")) {
            n += p.get("messages").asLong();
        }
        return n;
    }

    @Test
    void tenantHeaderIsIgnoredUnlessTrusted() {
        String queue = "hdr";
        Http.Reply r = Http.send(Tokens.request(A, "/api/v1/push").header("Content-Type", "application/json")
                .header(AccessFilter.TENANT_HEADER, "globex")
                .POST(HttpRequest.BodyPublishers.ofString("{\"items\":[{\"queue\":\"" + queue + "\"}]}")).build());
        assertEquals(201, r.status(), r.body());
        assertTrue(pop(B, "/api/v1/pop/queue/" + queue).isEmpty());
        assertEquals(1, pop(A, "/api/v1/pop/queue/" + queue).size());
    }

    @Test
    void aTokenWithoutTenantClaimUsesTheDefaultTenant() {
        String noTenant = Tokens.token("carol", "admin", null);
        String defaultByName = Tokens.token("dave", "admin", "00000000-0000-0000-0000-000000000001");
        assertEquals(201, Tokens.post(noTenant, "/api/v1/push", "{\"items\":[{\"queue\":\"dflt\"}]}").status());
        assertTrue(pop(A, "/api/v1/pop/queue/dflt").isEmpty());
        assertEquals(1, pop(defaultByName, "/api/v1/pop/queue/dflt").size());
    }
}
