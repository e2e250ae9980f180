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
