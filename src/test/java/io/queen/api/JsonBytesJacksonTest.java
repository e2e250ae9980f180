package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Hand-written answers (push, pop, ack) must be byte-for-byte what Jackson writes for the same tree. */
class JsonBytesJacksonTest {
    static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void matchesJacksonForStringsUuidsAndNumbers() throws Exception {
        Random rnd = new Random(42);
        String[] fixed = {"", "plain", "with \"quote\"", "back\\slash", "tab\there", "nl\n", "\u0000\u001f\u007f",
            "é ü 日本", "emoji \ud83d\ude00", "lone \ud800 surrogate", "trail \udc00", "/slash/", "<>&'"};
        for (String s : fixed) {
            check(s, rnd);
        }
        for (int i = 0; i < 20000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(12);
            for (int k = 0; k < len; k++) {
                int pick = rnd.nextInt(10);
                sb.append(pick < 6 ? (char) (0x20 + rnd.nextInt(0x60)) : pick < 8 ? (char) rnd.nextInt(0x100)
                        : (char) rnd.nextInt(0x10000));
            }
            check(sb.toString(), rnd);
        }
    }

    private static void check(String s, Random rnd) throws Exception {
        UUID u = new UUID(rnd.nextLong(), rnd.nextLong());
        long off = switch (rnd.nextInt(4)) {
            case 0 -> rnd.nextLong();
            case 1 -> rnd.nextInt(1000);
            case 2 -> rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default -> rnd.nextBoolean() ? 0 : (long) Math.pow(10, rnd.nextInt(19)) - rnd.nextInt(2);
        };
        ArrayNode tree = MAPPER.createArrayNode();
        ObjectNode r = tree.addObject();
        r.put("index", 7);
        r.put("s", s);
        r.put("id", u.toString());
        r.putNull("n");
        r.put("offset", off);
        JsonBytes w = new JsonBytes(16);
        w.raw('[').raw("{\"index\":").number(7).raw(",\"s\":").string(s).raw(",\"id\":").uuid(u)
                .raw(",\"n\":").string(null).raw(",\"offset\":").number(off).raw('}').raw(']');
        assertEquals(new String(MAPPER.writeValueAsBytes(tree), StandardCharsets.ISO_8859_1),
                new String(w.toByteArray(), StandardCharsets.ISO_8859_1), "for " + s);
    }

    @Test
    void growsPastItsInitialBuffer() throws Exception {
        JsonBytes w = new JsonBytes(0);
        StringBuilder expect = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            w.string("x" + i);
            expect.append("\"x").append(i).append('"');
        }
        assertEquals(expect.toString(), new String(w.toByteArray(), StandardCharsets.US_ASCII));
    }
}
