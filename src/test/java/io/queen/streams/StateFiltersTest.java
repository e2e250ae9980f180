package io.queen.streams;

import static io.queen.streams.StreamsApi.commit;
import static io.queen.streams.StreamsApi.cycle;
import static io.queen.streams.StreamsApi.item;
import static io.queen.streams.StreamsApi.register;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.schema.SchemaApplier;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The filters of {@code POST /streams/v1/state/get} (API spec 5.1): {@code keys}, {@code key_prefix} (a UTF-8 byte
 * prefix, nothing in it a pattern) and {@code ripe_at_or_before} ({@code value.windowEnd} a number at or below it),
 * and the SDKs' idle flush of a tumbling window with a grace period, which reads only what those filters select.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StateFiltersTest {
    private static final String G = "streams.flush";
    /** The SDKs' key shape: operator tag, window key, user key, joined by U+001F. */
    private static final String SEP = "\u001f";
    private static final AtomicInteger RUN = new AtomicInteger();

    @Inject
    AgroalDataSource ds;
    @Inject
    SchemaApplier applier;

    /** A registered query over a fresh source queue whose one partition holds {@code state} (written by a cycle). */
    private record Shard(String query, String pid) {
    }

    private static Shard shard(String name, Map<String, JsonNode> state) {
        String src = name + "-src";
        configure(src, "{}");
        pushN(src, "p", name + "-m", 0, 1);
        JsonNode p = pop("/api/v1/pop/queue/" + src + "/partition/p?batch=1&consumerGroup=" + G);
        assertNotNull(p);
        String pid = messages(p).get(0).get("partitionId").asText();
        String q = register(name, src, null, "h");
        JsonNode res = commit(cycle(q, pid, G, state, null, p.get("leaseId").asText(), 1,
                messages(p).get(0).get("transactionId").asText()));
        assertTrue(res.get("success").asBoolean(), res.toString());
        return new Shard(q, pid);
    }

    private static Http.Reply read(Shard s, String filtersJson) {
        return Http.post("/streams/v1/state/get", "{\"query_id\":\"" + s.query() + "\",\"partition_id\":\"" + s.pid()
                + "\"" + (filtersJson.isEmpty() ? "" : "," + filtersJson) + "}");
    }

    /** The keys of a state read, in the answer's order. */
    private static List<String> keys(Shard s, String filtersJson) {
        Http.Reply r = read(s, filtersJson);
        assertEquals(200, r.status(), filtersJson + " -> " + r.body());
        List<String> out = new ArrayList<>();
        for (JsonNode row : Api.json(r.body()).get("rows")) {
            out.add(row.get("key").asText());
        }
        return out;
    }

    private static String json(String s) {
        return Api.M.getNodeFactory().textNode(s).toString();
    }

    private static ObjectNode window(Object windowEnd) {
        ObjectNode v = Api.M.createObjectNode();
        v.putObject("acc").put("n", 1);
        if (windowEnd instanceof Long l) {
            v.put("windowEnd", l);
        } else if (windowEnd instanceof Double d) {
            v.put("windowEnd", d);
        } else if (windowEnd instanceof String str) {
            v.put("windowEnd", str);
        } else if (windowEnd == null) {
            v.putNull("windowEnd");
        }
        return v;
    }

    /**
     * key_prefix selects exactly the keys that start with it as UTF-8 bytes: multibyte characters (2, 3 and 4 bytes,
     * U+10FFFF whose successor does not exist) are whole characters, and LIKE's metacharacters are plain characters.
     */
    @Test
    void keyPrefixIsAByteStringPrefixWithNoPatternCharacters() {
        String max = new String(Character.toChars(0x10FFFF));
        String[] all = {"a", "a%", "a%b", "ab", "a_", "a_b", "aXb", "a\\", "a\\b", "a\\\\", "a\\%", "A_b", "é", "éa", "e",
            "ea", "ê", "f", "中", "中文", "丮", "a😀", "a😀b", "a😁", "a" + max, "a" + max + "x", "a" + max + max, "b",
            "\ud7ff", "\ud7ffz", "\ue000", "%", "_", "\\", "tumb:60" + SEP + "w" + SEP + "k", "tumb:600" + SEP + "w"};
        Map<String, JsonNode> state = new LinkedHashMap<>();
        for (String k : all) {
            state.put(k, window(1L));
        }
        Shard s = shard("prefix", state);
        assertEquals(all.length, keys(s, "").size());
        String[] prefixes = {"a", "a%", "a_", "a\\", "a\\\\", "%", "_", "\\", "é", "e", "中", "a😀", "a" + max,
            "a" + max + max, max, "\ud7ff", "tumb:60" + SEP, "tumb:60", "zzz"};
        for (String prefix : prefixes) {
            List<String> expected = new ArrayList<>();
            for (String k : all) {
                if (k.startsWith(prefix)) {
                    expected.add(k);
                }
            }
            List<String> got = keys(s, "\"keys\":[],\"key_prefix\":" + json(prefix));
            assertEquals(new java.util.TreeSet<>(expected), new java.util.TreeSet<>(got), "prefix " + json(prefix));
            assertEquals(expected.size(), got.size(), "prefix " + json(prefix));
        }
        // an empty or null prefix filters nothing; keys AND prefix
        assertEquals(all.length, keys(s, "\"key_prefix\":\"\"").size());
        assertEquals(all.length, keys(s, "\"key_prefix\":null").size());
        assertEquals(List.of("a%"), keys(s, "\"keys\":[\"a%\",\"b\",\"missing\"],\"key_prefix\":\"a\""));
    }

    private String keyCollation() {
        return Sql.one(ds, "SELECT c.collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation"
                + " WHERE a.attrelid = 'queen_streams.state'::regclass AND a.attname = 'key'");
    }

    /**
     * A state table whose key has a locale's collation (a database created with one, before the key was "C"):
     * there a prefix range also holds keys that merely sort between (in ICU's order '-' lies between '_' and
     * '`', and 'A' ties with 'a'), so the schema apply converts the key to "C" and the prefix selects bytes again.
     */
    @Test
    void aKeyInALocaleCollationIsConvertedToByteOrderByTheSchemaApply() throws Exception {
        Assumptions.assumeTrue(Sql.count(ds, "SELECT count(*) FROM pg_collation WHERE collname = 'en-x-icu'") == 1,
                "PostgreSQL built without ICU");
        Map<String, JsonNode> state = new LinkedHashMap<>();
        for (String k : new String[] {"a_", "a_1", "a-1", "A_1", "a`", "ab"}) {
            state.put(k, window(1L));
        }
        Shard s = shard("collation", state);
        assertEquals("C", keyCollation());
        Sql.exec(ds, "ALTER TABLE queen_streams.state ALTER COLUMN key TYPE TEXT COLLATE \"en-x-icu\"");
        try {
            assertNotEquals(List.of("a_", "a_1"), keys(s, "\"key_prefix\":\"a_\""), "the locale's range differs");
        } finally {
            applier.apply();
        }
        assertEquals("C", keyCollation());
        assertEquals(List.of("a_", "a_1"), keys(s, "\"key_prefix\":\"a_\""));
        assertEquals(List.of("A_1"), keys(s, "\"key_prefix\":\"A\""));
    }

    /** ripe_at_or_before: value.windowEnd is a JSON number <= the bound (fractions compared as such). */
    @Test
    void ripeFilterKeepsNumericWindowEndsAtOrBeforeTheBound() {
        Map<String, JsonNode> state = new LinkedHashMap<>();
        state.put("t" + SEP + "999", window(999L));
        state.put("t" + SEP + "1000", window(1000L));
        state.put("t" + SEP + "1000.5", window(1000.5));
        state.put("t" + SEP + "1001", window(1001L));
        state.put("t" + SEP + "neg", window(-5L));
        state.put("t" + SEP + "string", window("1000"));
        state.put("t" + SEP + "null", window(null));
        state.put("t" + SEP + "none", window(Boolean.TRUE));
        state.put("u" + SEP + "999", window(999L));
        state.put("__wm__", Api.M.createObjectNode().put("eventTimeMs", 1));
        Shard s = shard("ripe", state);
        assertEquals(List.of("t" + SEP + "neg"), keys(s, "\"ripe_at_or_before\":998"));
        assertEquals(List.of("t" + SEP + "1000", "t" + SEP + "999", "t" + SEP + "neg", "u" + SEP + "999"),
                keys(s, "\"ripe_at_or_before\":1000"));
        assertEquals(List.of("t" + SEP + "1000", "t" + SEP + "999", "t" + SEP + "neg"),
                keys(s, "\"key_prefix\":" + json("t" + SEP) + ",\"ripe_at_or_before\":1000"));
        assertEquals(List.of("t" + SEP + "1000", "t" + SEP + "1000.5", "t" + SEP + "999", "t" + SEP + "neg"),
                keys(s, "\"key_prefix\":" + json("t" + SEP) + ",\"ripe_at_or_before\":1000.5"));
        assertEquals(List.of("t" + SEP + "1000", "t" + SEP + "999", "t" + SEP + "neg"),
                keys(s, "\"key_prefix\":" + json("t" + SEP) + ",\"ripe_at_or_before\":1000.4999"));
        assertEquals(5, keys(s, "\"key_prefix\":" + json("t" + SEP) + ",\"ripe_at_or_before\":1e20").size());
        assertEquals(10, keys(s, "\"ripe_at_or_before\":null").size());
    }

    /** Filters of the wrong type are a 400 naming the field (a flush that silently read all would close windows). */
    @Test
    void badFilterTypesAreA400NamingTheField() {
        Shard s = shard("types", Map.of("k", window(1L)));
        String[][] cases = {
            {"\"key_prefix\":5", "key_prefix"}, {"\"key_prefix\":true", "key_prefix"},
            {"\"key_prefix\":{}", "key_prefix"}, {"\"key_prefix\":[\"k\"]", "key_prefix"},
            {"\"key_prefix\":\"k\\u0000\"", "key_prefix"}, {"\"key_prefix\":\"k\\ud800\"", "key_prefix"},
            {"\"key_prefix\":\"" + "k".repeat(1025) + "\"", "key_prefix"},
            {"\"ripe_at_or_before\":\"1000\"", "ripe_at_or_before"}, {"\"ripe_at_or_before\":true", "ripe_at_or_before"},
            {"\"ripe_at_or_before\":{}", "ripe_at_or_before"}, {"\"ripe_at_or_before\":[1]", "ripe_at_or_before"},
            {"\"ripe_at_or_before\":1e999", "ripe_at_or_before"}, {"\"ripe_at_or_before\":1e31", "ripe_at_or_before"},
            {"\"keys\":\"k\"", "keys"}, {"\"keys\":[1]", "keys"}, {"\"keys\":[\"k\\udc00\"]", "keys[0]"},
        };
        for (String[] c : cases) {
            Http.Reply r = read(s, c[0]);
            assertEquals(400, r.status(), c[0] + " -> " + r.body());
            JsonNode b = Api.json(r.body());
            assertFalse(b.get("success").asBoolean());
            assertTrue(b.get("error").asText().startsWith(c[1]), c[0] + " -> " + r.body());
        }
    }

    /**
     * The official clients' grace-period window test as its HTTP sequence: a tumbling 2 s window with a 4 s grace
     * holds three events; the idle flush (key_prefix = operator tag + U+001F, ripe_at_or_before = clock - grace)
     * finds nothing while the window is in its grace period, finds it once the grace has passed, closes it with a
     * no-ack cycle (state delete + sink push), and a later flush finds nothing to close again. Rows of another
     * operator, the watermark and a tag that merely extends this one are never read by the flush.
     */
    @RepeatedTest(20)
    void idleFlushClosesAGraceWindowOnlyOnceItsGraceHasPassed() {
        int run = RUN.incrementAndGet();
        String src = "grace-src-" + run;
        String sink = "grace-sink-" + run;
        configure(src, "{}");
        configure(sink, "{}");
        pushN(src, "p", "grace-" + run + "-", 0, 3);
        String q = register("grace-q-" + run, src, sink, "h");
        JsonNode p = pop("/api/v1/pop/queue/" + src + "/partition/p?batch=50&consumerGroup=" + G);
        assertNotNull(p);
        assertEquals(3, messages(p).size());
        String pid = messages(p).get(0).get("partitionId").asText();
        long windowStart = 1_700_000_000_000L;
        long windowEnd = windowStart + 2_000;
        long grace = 4_000;
        String tag = "tumb:2";
        String windowKey = tag + SEP + "2023-11-14T22:13:20.000Z" + SEP + pid;
        ObjectNode acc = Api.M.createObjectNode();
        acc.putObject("acc").put("count", 3).put("sum", 6);
        acc.put("windowStart", windowStart).put("windowEnd", windowEnd);
        Map<String, JsonNode> state = new LinkedHashMap<>();
        state.put(windowKey, acc);
        state.put("__wm__", Api.M.createObjectNode().put("eventTimeMs", windowEnd + 10_000));
        state.put("slide:2:1" + SEP + "w" + SEP + pid, window(windowStart));
        state.put("tumb:20" + SEP + "w" + SEP + pid, window(windowStart));
        JsonNode res = commit(cycle(q, pid, G, state, null, p.get("leaseId").asText(), 3,
                messages(p).get(2).get("transactionId").asText()));
        assertTrue(res.get("success").asBoolean(), res.toString());
        Shard s = new Shard(q, pid);
        String flushPrefix = "\"keys\":[],\"key_prefix\":" + json(tag + SEP) + ",\"ripe_at_or_before\":";

        // in its grace period (clock from the window's end to just before end + grace): the flush reads nothing
        for (long clock : new long[] {windowEnd, windowEnd + 1_000, windowEnd + grace - 1}) {
            assertEquals(List.of(), keys(s, flushPrefix + (clock - grace)), "clock " + clock);
        }
        // grace passed: exactly this window
        Http.Reply ripe = read(s, flushPrefix + windowEnd);
        assertEquals(200, ripe.status(), ripe.body());
        JsonNode rows = Api.json(ripe.body()).get("rows");
        assertEquals(1, rows.size(), ripe.body());
        assertEquals(windowKey, rows.get(0).get("key").asText());
        JsonNode value = rows.get(0).get("value");
        assertEquals(6, value.get("acc").get("sum").asInt());
        // the SDK closes it: delete + emit, no source ack
        Map<String, JsonNode> delete = new LinkedHashMap<>();
        delete.put(windowKey, null);
        JsonNode closed = commit(cycle(q, pid, G, delete, List.of(item(sink, "p", null, value.get("acc"))), null,
                null, null));
        assertTrue(closed.get("success").asBoolean(), closed.toString());
        // a later flush closes nothing more: the window is emitted once
        assertEquals(List.of(), keys(s, flushPrefix + (windowEnd + 60_000)));
        JsonNode emitted = pop("/api/v1/pop/queue/" + sink + "?batch=10&wait=false&autoAck=true");
        assertNotNull(emitted);
        assertEquals(1, messages(emitted).size());
        assertEquals(6, messages(emitted).get(0).get("data").get("sum").asInt());
        assertEquals(3, messages(emitted).get(0).get("data").get("count").asInt());
        // the rows the flush never read are all still there
        assertEquals(3, Sql.count(ds, "SELECT count(*) FROM queen_streams.state WHERE query_id = '" + q + "'"));
    }
}
