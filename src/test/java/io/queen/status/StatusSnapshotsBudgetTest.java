package io.queen.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Proxy;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The snapshot store without a broker: what is kept (costly answers only, within the entry and byte budgets, per
 * tenant), the {@code statsAge} member appended to the kept bytes, and the byte accounting through drops.
 */
class StatusSnapshotsBudgetTest {
    static final UUID T1 = UUID.fromString("00000000-0000-0000-0000-000000000001");
    static final UUID T2 = UUID.fromString("00000000-0000-0000-0000-000000000002");

    static StatusSnapshots snapshots(int thresholdMs, int maxEntries, int maxMb) {
        StatusConfig c = (StatusConfig) Proxy.newProxyInstance(StatusSnapshotsBudgetTest.class.getClassLoader(),
                new Class<?>[] {StatusConfig.class}, (p, m, a) -> switch (m.getName()) {
                    case "snapshotThresholdMs" -> thresholdMs;
                    case "snapshotRefreshMs" -> 60_000;
                    case "snapshotIdleMs" -> 60_000;
                    case "snapshotMaxEntries" -> maxEntries;
                    case "snapshotMaxMb" -> maxMb;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return new StatusSnapshots(c);
    }

    /** An answer of about {@code kib} KiB that takes at least 3 ms and counts its computations. */
    static StatusSnapshots.Answer answer(int kib, AtomicInteger calls) {
        return () -> {
            calls.incrementAndGet();
            try {
                Thread.sleep(3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ObjectNode o = Json.MAPPER.createObjectNode();
            o.put("pad", "x".repeat(kib * 1024));
            o.put("calls", calls.get());
            return o;
        };
    }

    static JsonNode body(Response r) throws Exception {
        return Json.MAPPER.readTree((byte[]) r.getEntity());
    }

    @Test
    void keptAnswersAreServedWithStatsAgeUntilDroppedAndTheByteBudgetHolds() throws Exception {
        StatusSnapshots s = snapshots(1, 10, 1);
        AtomicInteger a = new AtomicInteger();
        JsonNode first = body(s.serve(T1, "a", answer(600, a)));
        assertEquals(0, first.get("statsAge").asInt());
        assertEquals(1, first.get("calls").asInt());
        JsonNode again = body(s.serve(T1, "a", answer(600, a)));
        assertEquals(1, again.get("calls").asInt(), "served from the snapshot: not computed again");
        assertEquals(1, a.get());
        assertTrue(s.bytes() > 600 * 1024 && s.bytes() < 700 * 1024, "bytes " + s.bytes());

        AtomicInteger b = new AtomicInteger();
        s.serve(T1, "b", answer(600, b));
        s.serve(T1, "b", answer(600, b));
        assertEquals(2, b.get(), "over the 1 MiB budget: computed each time, never kept");
        assertEquals(1, s.size());

        AtomicInteger other = new AtomicInteger();
        assertEquals(1, body(s.serve(T2, "a", answer(1, other))).get("calls").asInt(), "another tenant's own answer");
        assertEquals(2, s.size());
        assertEquals(1, s.invalidate(T1));
        assertEquals(1, s.size());
        assertTrue(s.bytes() < 10 * 1024, "the dropped snapshot's bytes are released: " + s.bytes());
        assertEquals(2, body(s.serve(T1, "a", answer(600, a))).get("calls").asInt(), "computed afresh");
    }

    @Test
    void cheapAnswersAndEmptyObjectsAreNeverKeptAndStillCarryStatsAge() throws Exception {
        StatusSnapshots s = snapshots(10_000, 10, 64);
        AtomicInteger a = new AtomicInteger();
        s.serve(T1, "a", answer(1, a));
        s.serve(T1, "a", answer(1, a));
        assertEquals(2, a.get(), "under the threshold: computed on every request");
        assertEquals(0, s.size());
        JsonNode empty = body(s.serve(T1, "e", Json.MAPPER::createObjectNode));
        assertEquals(2, empty.size(), empty.toString());
        assertEquals(0, empty.get("statsAge").asInt());
        assertTrue(java.time.Instant.parse(empty.get("asOf").asText()).isBefore(java.time.Instant.now().plusSeconds(1)));
        assertEquals(StatusSnapshots.key("r", "x", null, 3), StatusSnapshots.key("r", "x", null, 3));
        assertTrue(!StatusSnapshots.key("r", "x", null).equals(StatusSnapshots.key("r", "x", "")), "null != empty");
    }
}
