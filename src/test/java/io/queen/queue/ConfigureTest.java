package io.queen.queue;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConfigureTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void echoesEveryOptionWithItsTypeAndStoresIt() {
        String options = """
                {"leaseTime":17,"retryLimit":5,"retryDelay":250,"priority":4,"maxSize":10,"ttl":99,
                 "deadLetterQueue":false,"dlqAfterMaxRetries":true,"delayedProcessing":2,"windowBuffer":3,
                 "retentionSeconds":10,"completedRetentionSeconds":5,"retentionEnabled":true,
                 "encryptionEnabled":false,"maxWaitTimeSeconds":30,"dedupWindowSeconds":120,"minPopWaitTime":50,
                 "unknownOption":"ignored"}""";
        given().contentType(ContentType.JSON)
                .body("{\"queue\":\"cfg.orders\",\"namespace\":\"ns\",\"task\":null,\"options\":" + options + "}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("configured", equalTo(true)).body("queueId", notNullValue()).body("queue", equalTo("cfg.orders"))
                .body("namespace", equalTo("ns")).body("task", equalTo("orders")).body("storage", equalTo("segments"))
                .body("options.leaseTime", equalTo(17)).body("options.retryLimit", equalTo(5))
                .body("options.retryDelay", equalTo(250)).body("options.priority", equalTo(4))
                .body("options.maxSize", equalTo(10)).body("options.ttl", equalTo(99))
                .body("options.deadLetterQueue", equalTo(false)).body("options.dlqAfterMaxRetries", equalTo(true))
                .body("options.delayedProcessing", equalTo(2)).body("options.windowBuffer", equalTo(3))
                .body("options.retentionSeconds", equalTo(10)).body("options.completedRetentionSeconds", equalTo(5))
                .body("options.retentionEnabled", equalTo(true)).body("options.encryptionEnabled", equalTo(false))
                .body("options.maxWaitTimeSeconds", equalTo(30)).body("options.dedupWindowSeconds", equalTo(120))
                .body("options.minPopWaitTime", equalTo(50)).body("options.unknownOption", nullValue());
        assertEquals("17|5|120|ns", Sql.one(ds, "SELECT lease_time || '|' || retry_limit || '|' || dedup_window_seconds"
                + " || '|' || namespace FROM queen.queues WHERE name = 'cfg.orders'"));
    }

    @Test
    void configureIsAFullReplaceWithConfigureDefaults() {
        given().contentType(ContentType.JSON).body("{\"queue\":\"cfg-replace\",\"options\":{\"leaseTime\":5,\"retryLimit\":9}}")
                .post("/api/v1/configure").then().statusCode(200);
        given().contentType(ContentType.JSON).body("{\"queue\":\"cfg-replace\"}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("options.leaseTime", equalTo(300)).body("options.retryLimit", equalTo(3))
                .body("options.deadLetterQueue", equalTo(true)).body("options.dedupWindowSeconds", equalTo(3600));
        assertEquals("1", Sql.one(ds, "SELECT count(*) FROM queen.queues WHERE name = 'cfg-replace'"));
    }

    /**
     * One rule for a queue's namespace and task, configured or created by its first push: what the request names,
     * else the name's parts ("shop.orders" -> shop/orders, "billing" -> billing/"").
     */
    @Test
    void namespaceAndTaskFollowOneRule() {
        given().contentType(ContentType.JSON).body("{\"items\":[{\"queue\":\"ns-pushed\",\"payload\":1},"
                + "{\"queue\":\"ns-shop.pushed\",\"payload\":1}]}").post("/api/v1/push").then().statusCode(201);
        given().contentType(ContentType.JSON).body("{\"queue\":\"ns-configured\",\"namespace\":null}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("namespace", equalTo("ns-configured")).body("task", equalTo(""));
        given().contentType(ContentType.JSON).body("{\"queue\":\"ns-shop.configured\"}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("namespace", equalTo("ns-shop")).body("task", equalTo("configured"));
        given().contentType(ContentType.JSON).body("{\"queue\":\"ns-named\",\"namespace\":\"\",\"task\":\"t\"}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("namespace", equalTo("")).body("task", equalTo("t"));
        assertEquals("ns-configured|||t|ns-pushed||ns-shop|configured|ns-shop|pushed", Sql.one(ds,
                "SELECT string_agg(namespace || '|' || task, '|' ORDER BY name COLLATE \"C\") FROM queen.queues"
                        + " WHERE name LIKE 'ns-%'"));
    }

    @Test
    void implicitQueueGetsLeaseTime60() {
        given().contentType(ContentType.JSON).body("{\"items\":[{\"queue\":\"cfg-implicit.sub\",\"payload\":1}]}")
                .post("/api/v1/push").then().statusCode(201);
        assertEquals("60|cfg-implicit|sub", Sql.one(ds, "SELECT lease_time || '|' || namespace || '|' || task"
                + " FROM queen.queues WHERE name = 'cfg-implicit.sub'"));
    }

    @Test
    void badInputIs400NamingTheField() {
        bad("", "Empty request body");
        bad("{not json", "Invalid JSON");
        bad("{\"options\":{}}", "queue is required");
        bad("{\"queue\":7}", "queue is required");
        bad("{\"queue\":\"\"}", "queue must be a non-empty string");
        bad("{\"queue\":\"a/b\"}", "queue must not contain '/'");
        bad("{\"queue\":\"a\\u0001b\"}", "control characters");
        bad("{\"queue\":\"" + "x".repeat(256) + "\"}", "longer than 255");
        bad("{\"queue\":\"q\",\"options\":{\"leaseTime\":\"300\"}}", "options.leaseTime must be an integer");
        bad("{\"queue\":\"q\",\"options\":{\"leaseTime\":1.5}}", "options.leaseTime must be an integer");
        bad("{\"queue\":\"q\",\"options\":{\"retryLimit\":-1}}", "options.retryLimit must not be negative");
        bad("{\"queue\":\"q\",\"options\":{\"retentionEnabled\":\"yes\"}}", "options.retentionEnabled must be a boolean");
        bad("{\"queue\":\"q\",\"options\":{\"storage\":\"rows\"}}", "options.storage");
        bad("{\"queue\":\"q\",\"options\":[1]}", "options must be an object");
        given().contentType(ContentType.JSON).body("{\"queue\":\"q\",\"options\":{\"storage\":\"segments\"}}")
                .post("/api/v1/configure").then().statusCode(200);
        assertEquals("0", Sql.one(ds, "SELECT count(*) FROM queen.queues WHERE name <> 'q' AND name NOT LIKE 'cfg%'"
                + " AND name NOT LIKE 'ns-%'"));
    }

    private static void bad(String body, String message) {
        given().contentType(ContentType.JSON).body(body).post("/api/v1/configure").then().statusCode(400)
                .contentType(ContentType.JSON).body("error", containsString(message));
    }
}
