package io.queen.pop;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pop answer's byte budget (here 10,000 bytes; a 3,000-byte message counts about 3,400): a batch of 10 comes
 * back as the messages that fit, the rest stays available to the next pops in order, each message delivered
 * once, with a lease or autoAck, in queue mode or for a group; a single message over the budget still comes.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.pop.max-response-bytes", value = "10000")})
class PopBudgetTest {
    static void push(String queue, int count, int payloadChars) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < count; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"transactionId\":\"m")
                    .append(i).append("\",\"payload\":{\"i\":").append(i).append(",\"pad\":\"")
                    .append("x".repeat(payloadChars)).append("\"}}");
        }
        Http.Reply r = Http.post("/api/v1/push", "{\"items\":[" + items + "]}");
        assertEquals(201, r.status(), r.body());
    }

    static List<Integer> indexes(JsonNode popped) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode m : messages(popped)) {
            out.add(m.get("data").get("i").asInt());
        }
        return out;
    }

    /** Pops batches of 10 until empty; each answer must hold 2 messages at most (the budget). */
    static List<Integer> drain(String path, boolean ack, String group) {
        List<Integer> seen = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            JsonNode p = pop(path);
            if (p == null) {
                return seen;
            }
            List<Integer> got = indexes(p);
            assertTrue(got.size() >= 1 && got.size() <= 2, path + " answered " + got);
            seen.addAll(got);
            if (ack) {
                ackAll(p, "completed", group);
            }
        }
        return seen;
    }

    @Test
    void aBatchStopsAtTheBudgetAndTheRestFollowsInOrder() {
        push("budget-lease", 10, 3000);
        List<Integer> all = List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        JsonNode first = pop("/api/v1/pop/queue/budget-lease?batch=10&wait=false");
        assertEquals(List.of(0, 1), indexes(first), "two 3 kB messages fit in 10,000 bytes, a third does not");
        ackAll(first, "completed", null);
        assertEquals(all.subList(2, 10), drain("/api/v1/pop/queue/budget-lease?batch=10&wait=false", true, null));

        push("budget-auto", 10, 3000);
        assertEquals(all, drain("/api/v1/pop/queue/budget-auto?batch=10&wait=false&autoAck=true", false, null));

        push("budget-group", 10, 3000);
        assertEquals(all, drain("/api/v1/pop/queue/budget-group?batch=10&wait=false&consumerGroup=g1", true, "g1"));
        assertEquals(all, drain("/api/v1/pop/queue/budget-group?batch=10&wait=false&consumerGroup=g2&autoAck=true",
                false, "g2"));
    }

    @Test
    void aMessageOverTheBudgetStillComesAlone() {
        push("budget-big", 3, 20_000);
        for (int i = 0; i < 3; i++) {
            JsonNode p = pop("/api/v1/pop/queue/budget-big?batch=10&wait=false");
            assertEquals(List.of(i), indexes(p));
            ackAll(p, "completed", null);
        }
        assertNull(pop("/api/v1/pop/queue/budget-big?batch=10&wait=false"));
    }
}
