package io.queen.groups;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * One partition's cursor of a group moved to an offset, to a time, or to the end (empty body), then proved by the
 * next pop; bad bodies are 400s naming the field.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PartitionSeekTest {
    private static final String SEEK = "/api/v1/consumer-groups/g/queues/ps/partitions/p/seek";

    private static long firstOffsetPopped() {
        JsonNode m = pop("/api/v1/pop/queue/ps/partition/p?batch=1&consumerGroup=g");
        ackAll(m, "retry", "g");
        return m.get("messages").get(0).get("offset").asLong();
    }

    @Test
    void toAnOffsetToATimeAndToTheEnd() {
        pushN("ps", "p", "m", 0, 10);
        ackAll(pop("/api/v1/pop/queue/ps/partition/p?batch=8&consumerGroup=g"), "completed", "g");

        Http.Reply r = Http.post(SEEK, "{\"offset\":3}");
        assertEquals(200, r.status(), r.body());
        assertEquals(2, json(r.body()).get("cursorMovedTo").asLong(), "offset 3 is delivered next");
        assertEquals(3, firstOffsetPopped());

        r = Http.post(SEEK, "{\"offset\":0}");
        assertEquals(200, r.status(), r.body());
        assertEquals(0, firstOffsetPopped());

        r = Http.post(SEEK, "{\"offset\":1000}");
        assertEquals(9, json(r.body()).get("cursorMovedTo").asLong(), "clamped to the end of the log");

        r = Http.post(SEEK, "{\"timestamp\":\"2000-01-01T00:00:00Z\"}");
        assertEquals(200, r.status(), r.body());
        assertEquals(0, firstOffsetPopped(), "everything is after 2000");

        r = Http.post(SEEK, "");
        assertEquals(9, json(r.body()).get("cursorMovedTo").asLong(), "an empty body still means the end");
    }

    @Test
    void badBodiesAre400sNamingTheField() {
        // validated before the partition is looked up
        for (String[] c : new String[][] {{"{\"offset\":-1}", "offset"}, {"{\"offset\":\"3\"}", "offset"},
                {"{\"offset\":1.5}", "offset"}, {"{\"offset\":1,\"timestamp\":\"2000-01-01T00:00:00Z\"}", "offset"},
                {"{\"timestamp\":\"yesterday\"}", "timestamp"}}) {
            Http.Reply r = Http.post(SEEK, c[0]);
            assertEquals(400, r.status(), c[0] + ": " + r.body());
            assertTrue(json(r.body()).get("error").asText().contains(c[1]), c[0] + ": " + r.body());
        }
    }
}
