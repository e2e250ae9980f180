package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.queen.push.PushItem;
import io.queen.push.PushRequestParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The parser's limits follow the body limit, not Jackson's defaults (20M characters per string). */
class JsonLimitsTest {
    private static byte[] pushWithString(int chars) {
        return ("{\"items\":[{\"queue\":\"q\",\"payload\":\"" + "x".repeat(chars) + "\"}]}")
                .getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aStringPayloadAsLongAsTheBodyLimitAllowsIsAccepted() {
        byte[] body = pushWithString(25 * 1024 * 1024);
        List<PushItem> items = new PushRequestParser(10, 64L * 1024 * 1024).parse(body);
        assertEquals(1, items.size());
        assertEquals(25 * 1024 * 1024 + 2, items.get(0).payload().length);
    }

    @Test
    void aStringLongerThanTheBodyLimitIsA400() {
        ApiException e = assertThrows(ApiException.class,
                () -> new PushRequestParser(10, 1024).parse(pushWithString(2000)));
        assertEquals(400, e.status());
    }

    @Test
    void nestingBeyondTheLimitIsA400() {
        String deep = "{\"items\":[{\"queue\":\"q\",\"payload\":" + "[".repeat(JsonLimits.MAX_DEPTH + 1)
                + "]".repeat(JsonLimits.MAX_DEPTH + 1) + "}]}";
        ApiException e = assertThrows(ApiException.class,
                () -> new PushRequestParser(10, 1 << 20).parse(deep.getBytes(StandardCharsets.US_ASCII)));
        assertEquals(400, e.status());
    }

    @Test
    void inputAcceptsPairsAndRejectsNulLoneSurrogatesAndLength() {
        assertEquals(null, Input.problem("a\ud83d\ude00b", 10));
        assertEquals(null, Input.problem(null, 1));
        assertEquals(" must not contain NUL (U+0000)", Input.problem("a\u0000", 10));
        assertEquals(" must be valid Unicode (lone surrogate at index 0)", Input.problem("\ud800", 10));
        assertEquals(" must be valid Unicode (lone surrogate at index 1)", Input.problem("a\udfff", 10));
        assertEquals(" must be valid Unicode (lone surrogate at index 0)", Input.problem("\ud800a", 10));
        assertEquals(" is longer than 3 characters", Input.problem("abcd", 3));
    }

    @Test
    void unstorableNamesTheFirstFieldWithAValueTextCannotHold() {
        assertEquals(null, Input.unstorable("Names", java.util.Arrays.asList("a", null, "b")));
        assertEquals("Names must not contain NUL (U+0000)", Input.unstorable("Names", List.of("a", "b\u0000")));
        assertEquals("Id is longer than " + Input.MAX_TEXT_CHARS + " characters",
                Input.unstorable("Id", "x".repeat(Input.MAX_TEXT_CHARS + 1)));
        assertEquals("B must not contain NUL (U+0000)", Input.firstProblem(null, Input.unstorable("A", "ok"),
                Input.unstorable("B", "\u0000"), Input.unstorable("C", "\u0000")));
        assertEquals(null, Input.firstProblem(Input.unstorable("A", (String) null)));
    }

    @Test
    void uriScanFlagsOnlyEncodingsThatCanDecodeToNulOrBeyondAscii() {
        assertEquals(true, UriChecks.suspicious("/a?x=%00"));
        assertEquals(true, UriChecks.suspicious("/a/%ed%a0%80"));
        assertEquals(true, UriChecks.suspicious("/a/%ED%BF%BF"));
        // every multi-byte sequence is decoded strictly, a well-formed one too (it is then accepted)
        assertEquals(true, UriChecks.suspicious("/a/%ED%9F%BF"));
        assertEquals(true, UriChecks.suspicious("/a/caf\u00e9"));
        assertEquals(false, UriChecks.suspicious("/a/%7F%2F%41"));
        assertEquals(false, UriChecks.suspicious("/api/v1/pop/queue/orders%2Fx?wait=true&timeout=100"));
        assertEquals(false, UriChecks.suspicious("/a?x=%0"));
    }
}
