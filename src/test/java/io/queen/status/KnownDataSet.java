package io.queen.status;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A known data set built through the HTTP API for the read-side admin routes: 3 queues, 10 partitions, queue
 * mode plus 2 named groups (g1, g2), acked, leased, failed and dead-lettered messages.
 * <pre>
 * st-orders (shop/orders, leaseTime 300): p0 10 msgs, queue mode acked 0..3, leases 4..6
 *                                          p1 5+5 msgs (2 segments), queue mode acked 0..1, offset 2 dead-lettered;
 *                                             first segment backdated 2 h, second 10 min
 *                                          p2 10 msgs, untouched
 *                                          p3 10 msgs, g1 acked all, g2 leases 0..4
 * st-events (shop/events, leaseTime 300): e0 5 msgs, g1 acked all; e1 5 msgs, queue mode failed offset 0 once;
 *                                          e2 5 msgs untouched
 * st-plain (namespace and task ""):          c0..c2 2 msgs each, untouched
 * </pre>
 */
public final class KnownDataSet {
    private KnownDataSet() {
    }

    public static void configure(String queue, String namespace, String task, String options) {
        String ns = namespace == null ? "null" : "\"" + namespace + "\"";
        String tk = task == null ? "null" : "\"" + task + "\"";
        Http.Reply r = Http.post("/api/v1/configure", "{\"queue\":\"" + queue + "\",\"namespace\":" + ns
                + ",\"task\":" + tk + ",\"options\":" + options + "}");
        assertEquals(200, r.status(), r.body());
    }

    public static JsonNode get(String path) {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), path + " -> " + r.body());
        return json(r.body());
    }

    public static void assertFigures(JsonNode m, long total, long pending, long processing, long completed, long failed,
            long deadLetter) {
        assertNotNull(m);
        assertEquals(List.of(total, pending, processing, completed, failed, deadLetter),
                List.of(m.get("total").asLong(), m.get("pending").asLong(), m.get("processing").asLong(),
                        m.get("completed").asLong(), m.get("failed").asLong(), m.get("deadLetter").asLong()),
                "total, pending, processing, completed, failed, deadLetter of " + m);
    }

    public static Map<String, JsonNode> byName(JsonNode arr, String key) {
        Map<String, JsonNode> out = new HashMap<>();
        arr.forEach(n -> out.put(n.get(key).asText(), n));
        return out;
    }

    public static String pid(DataSource ds, String queue, String partition) {
        return Sql.one(ds, "SELECT lp.id FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id"
                + " WHERE q.name = '" + queue + "' AND lp.name = '" + partition + "'");
    }

    /** Builds the data set (once per fresh database). */
    public static void build(DataSource ds) {
        configure("st-orders", "shop", "orders", "{\"leaseTime\":300}");
        configure("st-events", "shop", "events", "{\"leaseTime\":300,\"retryLimit\":3}");
        configure("st-plain", "", "", "{}");
        pushN("st-orders", "p0", "o0", 0, 10);
        pushN("st-orders", "p1", "o1", 0, 5);
        pushN("st-orders", "p1", "o1", 5, 5);
        pushN("st-orders", "p2", "o2", 0, 10);
        pushN("st-orders", "p3", "o3", 0, 10);
        for (String p : List.of("e0", "e1", "e2")) {
            pushN("st-events", p, p, 0, 5);
        }
        for (String p : List.of("c0", "c1", "c2")) {
            pushN("st-plain", p, p, 0, 2);
        }

        String base = "/api/v1/pop/queue/st-orders/partition/";
        ackAll(pop(base + "p0?batch=4"), "completed", null);
        assertEquals(3, pop(base + "p0?batch=3").get("messages").size());

        ackAll(pop(base + "p1?batch=2"), "completed", null);
        JsonNode poison = pop(base + "p1?batch=1").get("messages").get(0);
        JsonNode r = ack(poison.get("transactionId").asText(), poison.get("partitionId").asText(),
                poison.get("leaseId").asText(), "dlq", null, "poison pill");
        assertTrue(r.get("success").asBoolean(), r.toString());

        ackAll(pop(base + "p3?batch=10&consumerGroup=g1"), "completed", "g1");
        assertEquals(5, pop(base + "p3?batch=5&consumerGroup=g2").get("messages").size());

        ackAll(pop("/api/v1/pop/queue/st-events/partition/e0?batch=5&consumerGroup=g1"), "completed", "g1");
        JsonNode e1 = pop("/api/v1/pop/queue/st-events/partition/e1?batch=5").get("messages").get(0);
        ack(e1.get("transactionId").asText(), e1.get("partitionId").asText(), e1.get("leaseId").asText(), "failed",
                null, "transient");

        // time lag reads the segment holding the next offset: p1's next offset (3) is in its first segment
        Sql.exec(ds, "UPDATE queen.log_segments SET created_at = now() - interval '2 hours' WHERE partition_id = '"
                + pid(ds, "st-orders", "p1") + "' AND base_offset <= 3");
        Sql.exec(ds, "UPDATE queen.log_segments SET created_at = now() - interval '10 minutes' WHERE partition_id = '"
                + pid(ds, "st-orders", "p1") + "' AND base_offset > 3");
        // oldest_live_at mirrors the first live segment's created_at (retention work list): keep it true
        Sql.exec(ds, "UPDATE queen.log_partitions SET oldest_live_at = now() - interval '2 hours' WHERE id = '"
                + pid(ds, "st-orders", "p1") + "'");
        assertEquals(2, Sql.count(ds, "SELECT count(*) FROM queen.log_segments WHERE partition_id = '"
                + pid(ds, "st-orders", "p1") + "'"), "p1 holds two segments");
    }
}
