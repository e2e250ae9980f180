package io.queen.http;

import static io.queen.testing.RawHttp.firstHead;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The broker's router handlers run in {@link PipelineStage} order, ahead of every route Quarkus adds, and the order
 * shows in answers: the request checks refuse a body before it is read. (A draining broker's admission:
 * {@code AdmissionOrderTest}; the schema gate ahead of the checks: {@code DatabaseStartupIT}; the URI checks and
 * authentication ahead of the body's type: {@code AuthTest}.)
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PipelineOrderTest {
    /** Keeps the router the broker's stages were added to. */
    @ApplicationScoped
    static class RouterKeeper {
        private volatile Router router;

        void keep(@Observes Router router) {
            this.router = router;
        }

        Router router() {
            return router;
        }
    }

    @Inject
    RouterKeeper keeper;

    @Test
    void theStagesComeFirstAndInTheirOrder() {
        List<PipelineStage> seen = new ArrayList<>();
        Route foreign = null;
        for (Route route : keeper.router().getRoutes()) {
            PipelineStage stage = route.getMetadata(PipelineStage.METADATA);
            if (stage == null) {
                foreign = foreign == null ? route : foreign;
            } else {
                assertNull(foreign, "a route of no stage runs before the stage " + stage);
                if (seen.isEmpty() || seen.getLast() != stage) {
                    seen.add(stage);
                }
            }
        }
        assertEquals(List.of(PipelineStage.values()), seen, "every stage holds routes, in the stages' order");
    }

    @Test
    void theRequestChecksRefuseABodyBeforeItIsRead() throws Exception {
        // an acceptable body is asked for: the whole-body read answers the expectation
        String asked = firstHead(RestAssured.port, "POST /api/v1/push HTTP/1.1", "Content-Type: application/json",
                "Content-Length: 2", "Expect: 100-continue");
        assertTrue(asked.startsWith("HTTP/1.1 100 "), asked);
        String notJson = firstHead(RestAssured.port, "POST /api/v1/push HTTP/1.1", "Content-Type: text/xml",
                "Content-Length: 4", "Expect: 100-continue");
        assertTrue(notJson.startsWith("HTTP/1.1 415 "), notJson);
        String tooLarge = firstHead(RestAssured.port, "POST /api/v1/push HTTP/1.1", "Content-Type: application/json",
                "Content-Length: " + (1L << 40), "Expect: 100-continue");
        assertTrue(tooLarge.startsWith("HTTP/1.1 413 "), tooLarge);
    }
}
