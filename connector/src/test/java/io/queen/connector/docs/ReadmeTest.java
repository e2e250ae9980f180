package io.queen.connector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.queen.connector.QueenConnector;
import io.queen.connector.health.ChannelMetrics;
import io.smallrye.reactive.messaging.annotations.ConnectorAttribute;

/**
 * Keeps {@code connector/README.md} true to the code: the attribute table is generated from the
 * {@link ConnectorAttribute} annotations of {@link QueenConnector}, the metrics table from
 * {@link ChannelMetrics#DESCRIPTIONS}, and every code block marked {@code <!-- include: path -->} must be the named
 * file of the example application, verbatim. On a difference the test writes the README as it should be to
 * {@code target/README.generated.md} and fails: review it and copy it over {@code README.md}.
 */
class ReadmeTest {

    private static final Path README = Path.of("README.md");
    private static final Path GENERATED = Path.of("target", "README.generated.md");
    private static final Pattern INCLUDE = Pattern.compile(
            "(<!-- include: (\\S+) -->\n```(\\w+)\n)(.*?)(```\n)", Pattern.DOTALL);

    @Test
    void readmeMatchesTheCodeItDescribes() throws IOException {
        String actual = Files.readString(README, StandardCharsets.UTF_8);
        String expected = region(actual, "attributes", attributeTable());
        expected = region(expected, "metrics", metricsTable());
        expected = includes(expected);
        if (!expected.equals(actual)) {
            Files.createDirectories(GENERATED.getParent());
            Files.writeString(GENERATED, expected, StandardCharsets.UTF_8);
        }
        assertEquals(expected, actual, "README.md drifted from the code: compare with " + GENERATED.toAbsolutePath()
                + " and copy it over README.md");
    }

    @Test
    void everyIncludedFileExistsAndIsIncluded() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        Matcher m = INCLUDE.matcher(readme);
        int n = 0;
        while (m.find()) {
            assertTrue(Files.isRegularFile(Path.of(m.group(2))), "README includes a missing file: " + m.group(2));
            n++;
        }
        assertTrue(n >= 4, "the README shows the example application's code (found " + n + " includes)");
    }

    /** Replaces the text between {@code <!-- name:start -->} and {@code <!-- name:end -->}. */
    private static String region(String text, String name, String content) {
        String start = "<!-- " + name + ":start -->\n";
        String end = "<!-- " + name + ":end -->";
        int i = text.indexOf(start);
        int j = text.indexOf(end);
        assertTrue(i >= 0 && j > i, "README.md lacks the " + name + " markers");
        return text.substring(0, i + start.length()) + content + text.substring(j);
    }

    private static String includes(String text) throws IOException {
        Matcher m = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String file = Files.readString(Path.of(m.group(2)), StandardCharsets.UTF_8);
            if (!file.endsWith("\n")) {
                file += "\n";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + file + m.group(5)));
        }
        m.appendTail(out);
        return out.toString();
    }

    static String attributeTable() {
        List<ConnectorAttribute> all = new ArrayList<>(
                Arrays.asList(QueenConnector.class.getAnnotationsByType(ConnectorAttribute.class)));
        StringBuilder b = new StringBuilder("| attribute | direction | type | default | description |\n|---|---|---|---|---|\n");
        for (ConnectorAttribute.Direction d : List.of(ConnectorAttribute.Direction.INCOMING_AND_OUTGOING,
                ConnectorAttribute.Direction.INCOMING, ConnectorAttribute.Direction.OUTGOING)) {
            for (ConnectorAttribute a : all) {
                if (a.direction() != d || a.hiddenFromDocumentation()) {
                    continue;
                }
                String def = ConnectorAttribute.NO_VALUE.equals(a.defaultValue()) ? "" : "`" + a.defaultValue() + "`";
                b.append("| `").append(a.name()).append("` | ").append(direction(d)).append(" | ").append(a.type())
                        .append(" | ").append(def).append(" | ").append(a.description().replace("|", "\\|"))
                        .append(a.mandatory() ? " (mandatory)" : "").append(" |\n");
            }
        }
        return b.toString();
    }

    private static String direction(ConnectorAttribute.Direction d) {
        return switch (d) {
            case INCOMING_AND_OUTGOING -> "both";
            case INCOMING -> "incoming";
            case OUTGOING -> "outgoing";
        };
    }

    static String metricsTable() {
        StringBuilder b = new StringBuilder("| Prometheus name (Micrometer name) | kind | channels | meaning |\n|---|---|---|---|\n");
        for (ChannelMetrics.Meter m : ChannelMetrics.DESCRIPTIONS) {
            String prometheus = m.name().replace('.', '_').toLowerCase(Locale.ROOT) + (m.gauge() ? "" : "_total");
            b.append("| `").append(prometheus).append("` (`").append(m.name()).append("`) | ")
                    .append(m.gauge() ? "gauge" : "counter").append(" | ").append(m.incoming() ? "incoming" : "outgoing")
                    .append(" | ").append(m.help()).append(" |\n");
        }
        return b.toString();
    }
}
