package io.queen.warmup;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Readiness includes the hot path's warm-up, and the warm-up leaves nothing behind: its push, pops and acks ran
 * in transactions that were rolled back, and its HTTP requests wrote and counted nothing.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class HotPathWarmupTest {
    @Inject
    AgroalDataSource ds;

    @Test
    void readyOnlyWarmAndNothingLeftBehind() {
        // the database was there at boot: the warm-up ran during startup, before the first request
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'queen-warm-up' }.status", equalTo("UP"));
        assertEquals(0L, Sql.count(ds, "SELECT count(*) FROM queen.queues WHERE name LIKE 'queen-warm-up%'"));
        assertEquals(0L, Sql.count(ds, "SELECT (SELECT count(*) FROM queen.log_partitions)"
                + " + (SELECT count(*) FROM queen.log_segments) + (SELECT count(*) FROM queen.log_consumers)"));
        assertEquals(0L, Sql.count(ds, "SELECT count(*) FROM queen.metrics_queue_minute"
                + " WHERE queue_name LIKE 'queen-warm-up%'"));
    }
}
