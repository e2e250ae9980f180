package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The hand-written JSON must parse back to exactly what was written, for any string and any UUID. */
class JsonBytesTest {
    static final ObjectMapper M = new ObjectMapper();

    @Test
    void stringsAndUuidsRoundTrip() throws Exception {
        Random rnd = new Random(7);
        String[] tricky = {"", "plain", "quote\" back\\slash", "ctl\u0000\u001f\n\t", "ünïcødé ✓ 𝄞", "</script>"};
        for (int i = 0; i < 2000; i++) {
            String s = i < tricky.length ? tricky[i] : randomString(rnd);
            UUID u = new UUID(rnd.nextLong(), rnd.nextLong());
            long n = rnd.nextLong();
            byte[] json = new JsonBytes(8).raw("{\"s\":").string(s).raw(",\"u\":").uuid(u).raw(",\"n\":").number(n)
                    .raw(",\"z\":").string(null).raw(",\"b\":").bool(i % 2 == 0).raw(",\"raw\":")
                    .raw("{\"x\":[1,2]}".getBytes(StandardCharsets.UTF_8)).raw("}").toByteArray();
            JsonNode back = M.readTree(json);
            assertEquals(s, back.get("s").textValue());
            assertEquals(u.toString(), back.get("u").textValue());
            assertEquals(n, back.get("n").longValue());
            assertEquals(true, back.get("z").isNull());
            assertEquals(i % 2 == 0, back.get("b").booleanValue());
            assertEquals(2, back.get("raw").get("x").get(1).intValue());
        }
    }

    /** A memo answers the bytes of the string it is asked for, also after a change and for null; again() repeats. */
    @Test
    void memoAndAgain() throws Exception {
        JsonBytes.Memo memo = new JsonBytes.Memo();
        String[] values = {"q1", "q1", "q\"2", null, null, "ünï", "q1"};
        JsonBytes out = new JsonBytes(8).raw('[');
        for (int i = 0; i < values.length; i++) {
            out.raw(i == 0 ? "" : ",");
            int from = out.size();
            int to = out.raw(memo.of(values[i])).size();
            out.raw(',').again(from, to);
        }
        JsonNode back = M.readTree(out.raw(']').toByteArray());
        assertEquals(values.length * 2, back.size());
        for (int i = 0; i < values.length; i++) {
            for (int k = 0; k < 2; k++) {
                JsonNode v = back.get(2 * i + k);
                assertEquals(values[i], v.isNull() ? null : v.textValue());
            }
        }
    }

    private static String randomString(Random rnd) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(20);
        for (int i = 0; i < n; i++) {
            int cp;
            do {
                cp = rnd.nextInt(4) == 0 ? rnd.nextInt(0x20) : rnd.nextInt(0x2FFFF);
            } while (Character.isSurrogate((char) cp) && cp <= 0xFFFF);
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }
}
