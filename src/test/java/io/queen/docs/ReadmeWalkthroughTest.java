package io.queen.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.testing.Commands;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The curl walkthroughs of the docs are executed (README.md, and the keyed-state read of docs/streams.md): every
 * {@code ```sh} block of a document runs, in order, in ONE bash process (so the variables one block sets are seen
 * by the next) against a broker on a fresh database, with {@code http://localhost:6632} pointed at the test broker. The answer block that follows a command block is
 * checked: {@code ```json} is compared as JSON where the shown fields must be present with the shown values
 * (objects may carry more fields, arrays must have the shown length, {@code "…"} matches any value);
 * {@code ```text} must equal the output exactly (trailing blanks aside).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ReadmeWalkthroughTest {
    static final Path README = Path.of("README.md");
    static final String DOC_URL = "http://localhost:6632";
    static final String ANY = "…";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern FENCE = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```\\s*$", Pattern.DOTALL);

    record Step(String script, String lang, String answer) {
    }

    /** The command blocks of the README with the answer block that directly follows each, if any. */
    static List<Step> steps(String readme) {
        Matcher m = FENCE.matcher(readme);
        List<String[]> blocks = new ArrayList<>();
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
            blocks.add(new String[] {m.group(1), m.group(2)});
            spans.add(new int[] {m.start(), m.end()});
        }
        List<Step> out = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            if (!blocks.get(i)[0].equals("sh")) {
                continue;
            }
            String lang = null;
            String answer = null;
            if (i + 1 < blocks.size() && readme.substring(spans.get(i)[1], spans.get(i + 1)[0]).isBlank()
                    && !blocks.get(i + 1)[0].equals("sh")) {
                lang = blocks.get(i + 1)[0];
                answer = blocks.get(i + 1)[1];
            }
            out.add(new Step(blocks.get(i)[1], lang, answer));
        }
        return out;
    }

    @Test
    void theWalkthroughRunsAndEveryAnswerShownIsTheBrokersAnswer() throws Exception {
        List<Step> steps = steps(Files.readString(README, StandardCharsets.UTF_8));
        assertTrue(steps.size() >= 8, "the README's walkthrough has its command blocks (found " + steps.size() + ")");
        String all = String.join("\n", steps.stream().map(Step::script).toList());
        for (String route : List.of("/api/v1/push", "/api/v1/pop/", "/api/v1/ack", "consumerGroup=", "/api/v1/dlq")) {
            assertTrue(all.contains(route), "the walkthrough shows " + route);
        }
        run(README, steps);
    }

    @Test
    void readingKeyedStateFromOutsideWorksAsShown() throws Exception {
        Path doc = Path.of("docs/streams.md");
        List<Step> steps = steps(Files.readString(doc, StandardCharsets.UTF_8));
        assertTrue(steps.size() >= 2, "docs/streams.md shows the state read (found " + steps.size() + ")");
        assertTrue(steps.get(steps.size() - 1).script().contains("/streams/v1/state/get"), "the last step reads state");
        run(doc, steps);
    }

    /** Runs the steps of one document in one bash process and checks every answer shown. */
    static void run(Path doc, List<Step> steps) throws Exception {
        assumeTrue(Commands.onPath("curl") && Commands.onPath("jq"), "the docs' walkthroughs need curl and jq on PATH (.ci/run installs "
                + "them); " + doc + " not checked");
        assertTrue(steps.stream().allMatch(s -> s.answer() != null),
                doc + ": every command block is followed by its answer");
        String marker = "=====queen-readme-step=====";
        StringBuilder script = new StringBuilder("set -e\n");
        for (Step s : steps) {
            script.append(s.script().replace(DOC_URL, Http.base())).append("\necho ").append(marker).append('\n');
        }
        Path file = Files.createTempFile("readme-walkthrough", ".sh");
        Files.writeString(file, script);
        Process p = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the walkthrough did not finish in 120 s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Files.delete(file);
        assertEquals(0, p.exitValue(), "the walkthrough failed:\n" + output);
        String[] outputs = output.split(Pattern.quote(marker) + "\\n", -1);
        assertEquals(steps.size() + 1, outputs.length, output);
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            String actual = outputs[i];
            String where = doc + " step " + (i + 1) + ":\n" + s.script() + "\nanswered:\n" + actual;
            if ("json".equals(s.lang())) {
                JsonNode want = JSON.readTree(s.answer());
                JsonNode got = JSON.readTree(actual);
                String diff = mismatch("$", want, got);
                assertEquals(null, diff, where);
            } else {
                assertEquals(strip(s.answer()), strip(actual), where);
            }
        }
    }

    /** Null when {@code got} shows everything {@code want} shows; else where they differ. */
    static String mismatch(String at, JsonNode want, JsonNode got) {
        if (want.isTextual() && want.asText().equals(ANY)) {
            return got == null || got.isMissingNode() || got.isNull() ? at + ": missing" : null;
        }
        if (got == null) {
            return at + ": missing";
        }
        if (want.isObject()) {
            if (!got.isObject()) {
                return at + ": not an object";
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = want.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String d = mismatch(at + "." + e.getKey(), e.getValue(), got.get(e.getKey()));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (want.isArray()) {
            if (!got.isArray() || got.size() != want.size()) {
                return at + ": expected an array of " + want.size();
            }
            for (int i = 0; i < want.size(); i++) {
                String d = mismatch(at + "[" + i + "]", want.get(i), got.get(i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        return want.equals(got) ? null : at + ": expected " + want + ", got " + got;
    }

    private static String strip(String s) {
        return s.strip().replaceAll("[ \\t]+\\n", "\n");
    }

    @Test
    void theMatcherRefusesAWrongAnswer() throws IOException {
        JsonNode want = JSON.readTree("[{\"status\":\"queued\",\"id\":\"…\"}]");
        assertEquals(null, mismatch("$", want, JSON.readTree("[{\"status\":\"queued\",\"id\":\"x\",\"more\":1}]")));
        assertTrue(mismatch("$", want, JSON.readTree("[{\"status\":\"duplicate\",\"id\":\"x\"}]")) != null);
        assertTrue(mismatch("$", want, JSON.readTree("[{\"status\":\"queued\"}]")) != null);
        assertTrue(mismatch("$", want, JSON.readTree("[]")) != null);
    }
}
