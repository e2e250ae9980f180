package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

/**
 * The answers to hostile input: every client string is checked before SQL (400 naming the field, nothing
 * written), timestamps outside 1970..9999 are a 400, non-JSON bodies a 415, and no answer carries database text.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class HostileInputTest {
    @Inject
    AgroalDataSource ds;

    private static void assert400(Http.Reply r, String field) {
        assertEquals(400, r.status(), r.body());
        JsonNode b = Api.json(r.body());
        assertTrue(b.path("error").asText().contains(field), r.body());
        assertFalse(r.body().contains("ERROR:") || r.body().contains("SQL"), r.body());
    }

    private long rows() {
        return rowsIn("queen.queues", "queen.log_partitions", "queen.log_consumers", "queen.log_dlq");
    }

    /** The rows of all {@code tables} together: a refused request must not have written any. */
    private long rowsIn(String... tables) {
        StringJoiner sum = new StringJoiner(" + ", "SELECT ", "");
        for (String t : tables) {
            sum.add("(SELECT count(*) FROM " + t + ")");
        }
        return Sql.count(ds, sum.toString());
    }

    @Test
    void nulInQueryPathAndBodyFieldsIsA400NamingTheField() {
        long before = rows();
        assert400(Http.get("/api/v1/dlq?queue=%00"), "queue");
        assert400(Http.get("/api/v1/messages?status=a%00b"), "status");
        assert400(Http.delete("/api/v1/consumer-groups/%00"), "group");
        assert400(Http.get("/api/v1/pop/queue/q%00x?wait=false"), "queue");
        assert400(Http.get("/api/v1/pop/queue/q?consumerGroup=g%00&wait=false"), "consumerGroup");
        assert400(Http.post("/api/v1/lease/%00/extend", "{}"), "leaseId");
        String pid = "00000000-0000-0000-0000-000000000001";
        assert400(Http.post("/api/v1/ack", "{\"transactionId\":\"t\",\"partitionId\":\"" + pid
                + "\",\"consumerGroup\":\"g\\u0000\"}"), "consumerGroup");
        assert400(Http.post("/api/v1/ack", "{\"transactionId\":\"t\",\"partitionId\":\"" + pid
                + "\",\"leaseId\":\"l\\u0000\"}"), "leaseId");
        assert400(Http.post("/api/v1/ack", "{\"transactionId\":\"t\",\"partitionId\":\"" + pid
                + "\",\"status\":\"failed\",\"error\":\"e\\u0000\"}"), "error");
        assert400(Http.post("/api/v1/ack/batch", "{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\""
                + pid + "\",\"status\":\"x\\u0000\"}]}"), "acknowledgments[0].status");
        assert400(Http.post("/api/v1/configure", "{\"queue\":\"q\",\"namespace\":\"n\\u0000\"}"), "namespace");
        assert400(Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"q\\u0000\"}]}"), "queue");
        assertEquals(before, rows());
    }

    @Test
    void loneSurrogatesAreA400AndNeverMergeWithQuestionMarks() {
        long before = rows();
        String pid = "00000000-0000-0000-0000-000000000001";
        assert400(Http.post("/api/v1/ack", "{\"transactionId\":\"\\ud800\",\"partitionId\":\"" + pid + "\"}"),
                "transactionId");
        assert400(Http.post("/api/v1/ack/batch", "{\"acknowledgments\":[{\"transactionId\":\"\\udbff\",\"partitionId\":\""
                + pid + "\"}]}"), "acknowledgments[0].transactionId");
        assert400(Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"ack\",\"transactionId\":\"\\ud800\","
                + "\"partitionId\":\"" + pid + "\"}]}"), "transactionId");
        assert400(Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"s\",\"transactionId\":\"\\ud800\"}]}"),
                "transactionId");
        assert400(Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"\\udfff\"}]}"), "queue");
        assertEquals(before, rows());
        // a well-formed pair is a character like any other, and '?' is its own id
        JsonNode a = Api.json(Http.post("/api/v1/push",
                "{\"items\":[{\"queue\":\"s\",\"transactionId\":\"\\ud83d\\ude00\"}]}").body());
        JsonNode b = Api.json(Http.post("/api/v1/push",
                "{\"items\":[{\"queue\":\"s\",\"transactionId\":\"?\"}]}").body());
        assertEquals("queued", a.get(0).get("status").asText());
        assertEquals("queued", b.get(0).get("status").asText());
        assertNotEquals(a.get(0).get("message_id").asText(), b.get(0).get("message_id").asText());
    }

    private long streamsRows() {
        return rowsIn("queen_streams.queries", "queen_streams.state");
    }

    /** The /streams/v1 routes apply the same rules: a NUL is a 400 (not a 500), lone surrogates never merge. */
    @Test
    void streamsRoutesRefuseNulAndLoneSurrogatesNamingTheField() {
        long before = streamsRows();
        for (String field : new String[] {"name", "source_queue", "sink_queue", "config_hash"}) {
            for (String bad : new String[] {"a\\u0000b", "sq\\ud800", "sq\\udfff"}) {
                String body = "{\"name\":\"sq\",\"source_queue\":\"sq-src\",\"sink_queue\":\"sq-sink\","
                        + "\"config_hash\":\"h\"}";
                body = body.replaceFirst("\"" + field + "\":\"[^\"]*\"",
                        java.util.regex.Matcher.quoteReplacement("\"" + field + "\":\"" + bad + "\""));
                assert400(Http.post("/streams/v1/queries", body), field);
            }
        }
        assertEquals(before, streamsRows());
        Api.configure("sq-src", "{}");
        String pid = Api.pushN("sq-src", "P", "sq-", 0, 1).get(0).get("partition_id").asText();
        String q = Api.json(Http.post("/streams/v1/queries",
                "{\"name\":\"sq\",\"source_queue\":\"sq-src\",\"config_hash\":\"h\"}").body())
                .get("query_id").asText();
        long registered = streamsRows();
        String head = "{\"query_id\":\"" + q + "\",\"partition_id\":\"" + pid + "\",";
        String upsert = "\"state_ops\":[{\"type\":\"upsert\",\"key\":\"%s\",\"value\":{\"v\":%s}}]";
        for (String key : new String[] {"k\\ud800", "k\\udfff", "k\\u0000"}) {
            assert400(Http.post("/streams/v1/cycle", head + upsert.formatted(key, "1") + "}"), "state_ops[0].key");
            assert400(Http.post("/streams/v1/state/get", head + "\"keys\":[\"k\",\"" + key + "\"]}"), "keys[1]");
        }
        assert400(Http.post("/streams/v1/cycle", head + upsert.formatted("k", "\"\\ud800\"") + "}"),
                "state_ops[0].value");
        assert400(Http.post("/streams/v1/cycle", head + "\"consumer_group\":\"g\\u0000\"}"), "consumer_group");
        assert400(Http.post("/streams/v1/cycle", head + "\"consumer_group\":\"g\\udfff\"}"), "consumer_group");
        assert400(Http.post("/streams/v1/cycle", head + "\"ack\":{\"leaseId\":\"l\\u0000\"}}"), "ack.leaseId");
        assert400(Http.post("/streams/v1/cycle", head + "\"ack\":{\"leaseId\":\"l\",\"status\":\"failed\","
                + "\"transactionId\":\"t\\ud800\"}}"), "ack.transactionId");
        assert400(Http.post("/streams/v1/cycle", head + "\"ack\":{\"leaseId\":\"l\",\"status\":\"failed\","
                + "\"transactionId\":\"t\",\"error\":\"e\\u0000\"}}"), "ack.error");
        assert400(Http.post("/streams/v1/cycle", head + "\"push_items\":[{\"queue\":\"sq\\ud800\"}]}"), "queue");
        assertEquals(registered, streamsRows());
    }

    /**
     * Bytes that are not well-formed UTF-8 are a 400 naming the parameter, in a query and in a path: decoded
     * leniently they would all become U+FFFD, and {@code g%ED%A0%80}, {@code g%ED%A0%81} and {@code g%FF} one group.
     */
    @Test
    void malformedUtf8InPercentEscapesIsA400NamingTheParameter() {
        long before = rows();
        for (String bad : new String[] {"%ED%A0%80", "%ED%A0%81", "%FF", "%C0%80", "%E4%B8x", "%80", "%F4%90%80%80",
                "%F0%9F%98"}) {
            assert400(Http.get("/api/v1/pop/queue/q?wait=false&consumerGroup=g" + bad), "consumerGroup");
            assert400(Http.get("/api/v1/pop/queue/q" + bad + "?wait=false"), "queue");
            assert400(Http.get("/api/v1/pop/queue/q/partition/p" + bad + "?wait=false"), "partition");
            assert400(Http.delete("/api/v1/consumer-groups/g" + bad), "group");
            assert400(Http.get("/api/v1/dlq?queue=q&partition=p" + bad), "partition");
            assert400(Http.post("/api/v1/lease/l" + bad + "/extend", "{}"), "leaseId");
        }
        assert400(Http.get("/api/v1/dlq?q%FF=1"), "parameter name");
        assertEquals(before, rows());
        // well-formed escapes of multi-byte characters (and of U+FFFD itself) are names like any other
        assertEquals(204, Http.get("/api/v1/pop/queue/q?wait=false&consumerGroup=g%E4%B8%AD%F0%9F%98%80").status());
        assertEquals(204, Http.get("/api/v1/pop/queue/q%EF%BF%BD?wait=false&consumerGroup=g%EF%BF%BD").status());
    }

    @Test
    void timestampsOutsideTheRangeAreA400() {
        assert400(Http.get("/api/v1/pop/queue/q?wait=false&subscriptionFrom=-999999999-01-01T00:00:00Z"),
                "subscriptionFrom");
        assert400(Http.get("/api/v1/messages?to=-999999999-01-01T00:00:00Z"), "to");
        assert400(Http.get("/api/v1/dlq?from=%2B10000-01-01T00:00:00Z"), "from");
        assert400(Http.get("/api/v1/analytics/retention?to=1969-12-31T23:59:59Z"), "to");
        // unparseable stays the pop's silent fallback (API spec 3.4)
        assertEquals(204, Http.get("/api/v1/pop/queue/q?wait=false&subscriptionFrom=yesterday").status());
        assertEquals(200, Http.get("/api/v1/dlq?from=1970-01-01T00:00:00Z&to=9999-12-31T00:00:00Z").status());
    }

    @Test
    void namesLongerThanTheSchemaAllowsAreA400() {
        String g = "g".repeat(256);
        assert400(Http.get("/api/v1/pop/queue/q?wait=false&consumerGroup=" + g), "consumerGroup");
        assert400(Http.post("/api/v1/configure", "{\"queue\":\"q\",\"task\":\"" + "t".repeat(256) + "\"}"), "task");
        assert400(Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"" + "q".repeat(256) + "\"}]}"), "queue");
        assertEquals(204, Http.get("/api/v1/pop/queue/q?wait=false&consumerGroup=" + "g".repeat(255)).status());
    }

    @Test
    void nonJsonContentTypeIsA415AndJsonVariantsOrNoneAreAccepted() {
        String body = "{\"items\":[{\"queue\":\"ct\",\"payload\":1}]}";
        Http.Reply xml = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/api/v1/push"))
                .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10)).build());
        assertEquals(415, xml.status(), xml.body());
        assertTrue(Api.json(xml.body()).has("error"));
        Http.Reply form = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/api/v1/ack"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(Duration.ofSeconds(10)).build());
        assertEquals(415, form.status(), form.body());
        for (String ct : new String[] {"application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
                "application/vnd.api+json"}) {
            Http.Reply ok = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/api/v1/push"))
                    .header("Content-Type", ct).POST(HttpRequest.BodyPublishers.ofString(body))
                    .timeout(Duration.ofSeconds(10)).build());
            assertEquals(201, ok.status(), ct + ": " + ok.body());
        }
        Http.Reply none = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/api/v1/push"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(10)).build());
        assertEquals(201, none.status(), none.body());
        // a bodiless GET carrying a non-JSON type is not refused (nothing to parse)
        Http.Reply get = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/health"))
                .header("Content-Type", "text/plain").GET().timeout(Duration.ofSeconds(10)).build());
        assertEquals(200, get.status());
    }

    @Test
    void encryptionWithoutAKeyIsA400NamingTheSetting() {
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"enc\",\"options\":{\"encryptionEnabled\":true}}");
        assert400(r, "QUEEN_ENCRYPTION_KEY");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.queues WHERE name = 'enc'"));
        // a queue flagged before the key went away: its pushes are refused, not stored in plaintext
        Api.configure("enc2", "{}");
        Sql.exec(ds, "UPDATE queen.queues SET encryption_enabled = true WHERE name = 'enc2'");
        Http.Reply p = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"enc2\",\"payload\":{\"secret\":1}}]}");
        assert400(p, "QUEEN_ENCRYPTION_KEY");
        assertEquals(0, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id WHERE q.name = 'enc2'"));
    }

    /**
     * Found by HostileFuzzTest, seed 1072345562367: a '%' not followed by two hex digits. The HTTP codec refuses
     * such a request line before any handler runs (400, no body); it must stay a 4xx that reaches nothing.
     */
    @Test
    void malformedPercentEncodingIsA400() throws Exception {
        int port = io.restassured.RestAssured.port;
        long before = rows();
        for (String target : new String[] {"/api/v1/pop/queue/fz-a?wait=false&subscriptionMode=%",
                "/api/v1/dlq?queue=%zz", "/api/v1/consumer-groups/a%2"}) {
            io.queen.testing.RawHttp.Reply r = io.queen.testing.RawHttp.send(port,
                    target.contains("consumer-groups") ? "DELETE" : "GET", target, null, null);
            assertEquals(400, r.status(), target + " " + r.body());
        }
        assertEquals(before, rows());
        assertEquals(200, Http.get("/health").status());
    }

    @Test
    void deepNestingIsA400() {
        Http.Reply deep = Http.post("/api/v1/ack", "{\"a\":" + "[".repeat(5000) + "]".repeat(5000) + "}");
        assertEquals(400, deep.status(), deep.body());
        Http.Reply deepPush = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"d\",\"payload\":"
                + "[".repeat(5000) + "]".repeat(5000) + "}]}");
        assertEquals(400, deepPush.status(), deepPush.body());
    }
}
