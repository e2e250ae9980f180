package io.queen.groups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A group's lag covers every partition of the queues it consumes, following its subscription: in a partition it
 * has not popped yet it stands where its first pop would start it (mode all: the beginning; new: its first
 * contact; a timestamp: that time), never "caught up" because it has not looked there.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsumerGroupLagTest {
    @Inject
    AgroalDataSource ds;

    static JsonNode entry(String group, String queue) {
        Http.Reply r = Http.get("/api/v1/consumer-groups");
        assertEquals(200, r.status(), r.body());
        for (JsonNode e : Api.json(r.body())) {
            if (e.get("name").asText().equals(group) && e.get("queueName").asText().equals(queue)) {
                return e;
            }
        }
        throw new AssertionError(group + "@" + queue + " not listed: " + r.body());
    }

    /** offsetLag by partition name, from the one-group view. */
    static Map<String, Long> lagByPartition(String group, String queue) {
        Http.Reply r = Http.get("/api/v1/consumer-groups/" + group);
        assertEquals(200, r.status(), r.body());
        Map<String, Long> out = new HashMap<>();
        Api.json(r.body()).get(queue).get("partitions")
                .forEach(p -> out.put(p.get("partition").asText(), p.get("offsetLag").asLong()));
        return out;
    }

    @Test
    void aGroupThatPoppedThreePartitionsOfTenLagsByEveryUnreadMessage() {
        long total = 0;
        for (int p = 0; p < 10; p++) {
            Api.pushN("lag-all", "p" + p, "m" + p, 0, 10 + p);
            total += 10 + p;
        }
        for (int p = 0; p < 3; p++) {
            assertTrue(Api.pop("/api/v1/pop/queue/lag-all/partition/p" + p + "?wait=false&batch=5&consumerGroup=g")
                    != null);
        }
        JsonNode g = entry("g", "lag-all");
        assertEquals(total, g.get("totalLag").asLong(), g.toString());
        assertEquals(10, g.get("partitionsWithLag").asInt(), g.toString());
        assertEquals(3, g.get("members").asInt(), "members are the cursors: " + g);
        Map<String, Long> lag = lagByPartition("g", "lag-all");
        assertEquals(10, lag.size(), lag.toString());
        assertEquals(19L, lag.get("p9"));
        // queue mode reads everything live too
        assertTrue(Api.pop("/api/v1/pop/queue/lag-all/partition/p0?wait=false&batch=10") != null);
        assertEquals(total, entry("__QUEUE_MODE__", "lag-all").get("totalLag").asLong());
    }

    @Test
    void aNewOnlyGroupLagsOnlyByWhatArrivedAfterItsFirstContact() {
        for (int p = 0; p < 5; p++) {
            Api.pushN("lag-new", "n" + p, "m" + p, 0, 3);
        }
        assertNull(Api.pop("/api/v1/pop/queue/lag-new/partition/n0?wait=false&consumerGroup=late&subscriptionMode=new"));
        assertEquals(0, entry("late", "lag-new").get("totalLag").asLong());
        Api.pushN("lag-new", "n1", "m1", 3, 2);
        Api.pushN("lag-new", "n2", "m2", 3, 1);
        JsonNode late = entry("late", "lag-new");
        assertEquals(3, late.get("totalLag").asLong(), late.toString());
        assertEquals(2, late.get("partitionsWithLag").asInt(), late.toString());
        assertEquals(Map.of("n0", 0L, "n1", 2L, "n2", 1L, "n3", 0L, "n4", 0L), lagByPartition("late", "lag-new"));
        // and what the lag promises is what a pop delivers
        assertEquals(2, Api.messages(Api.pop("/api/v1/pop/queue/lag-new/partition/n1?wait=false&batch=10"
                + "&consumerGroup=late")).size());
    }

    @Test
    void aTimestampSubscriptionLagsOnlyByWhatWasCreatedFromThatTime() throws Exception {
        // t0 gets two segments before the start and three after it, so the start is found between segments
        Api.pushN("lag-ts", "t0", "a", 0, 2);
        Api.pushN("lag-ts", "t0", "a", 2, 2);
        Api.pushN("lag-ts", "t1", "b", 0, 2);
        Api.pushN("lag-ts", "t2", "c", 0, 5);
        String from = Sql.one(ds, "SELECT to_char((date_trunc('milliseconds', clock_timestamp())"
                + " + interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
        while (Sql.count(ds, "SELECT count(*) WHERE clock_timestamp() > '" + from + "'::timestamptz") == 0) {
            Thread.onSpinWait();
        }
        for (int i = 4; i < 7; i++) {
            Api.pushN("lag-ts", "t0", "a", i, 1);
        }
        Api.pushN("lag-ts", "t1", "b", 2, 1);
        assertNull(Api.pop("/api/v1/pop/queue/lag-ts/partition/t2?wait=false&consumerGroup=ts&subscriptionFrom="
                + from));
        JsonNode ts = entry("ts", "lag-ts");
        assertEquals(4, ts.get("totalLag").asLong(), ts.toString());
        assertEquals(Map.of("t0", 3L, "t1", 1L, "t2", 0L), lagByPartition("ts", "lag-ts"));
        assertEquals(3, Api.messages(Api.pop("/api/v1/pop/queue/lag-ts/partition/t0?wait=false&batch=10"
                + "&consumerGroup=ts")).size());
    }
}
