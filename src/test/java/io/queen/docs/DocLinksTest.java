package io.queen.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user docs hold together: every relative link of README.md, docs/*.md and the other READMEs names a file of
 * the repository (never a path outside it), every {@code #anchor} into a Markdown file names one of its headings,
 * every {@code #L<n>} into a source file names an existing line, and that line contains the link's text when the
 * text is code ({@code [`INSERT INTO ...`](file#L70)}). Links leaving the repository go to public https sites.
 * The README stays a front page. Every package of the broker says what it owns in a {@code package-info.java} and
 * is named in docs/architecture.md's package map.
 */
class DocLinksTest {
    static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```.*?^```");

    static List<Path> docs() throws IOException {
        List<Path> out = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md"),
                Path.of("connector/README.md"),
                Path.of("bench/README.md"), Path.of("examples/billing/README.md")));
        try (Stream<Path> s = Files.list(Path.of("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    static Set<String> anchors(Path md) throws IOException {
        String text = FENCE.matcher(Files.readString(md, StandardCharsets.UTF_8)).replaceAll("");
        Set<String> out = new HashSet<>();
        Matcher m = HEADING.matcher(text);
        while (m.find()) {
            String s = slug(m.group(1));
            String a = s;
            for (int n = 1; !out.add(a); n++) {
                a = s + "-" + n;
            }
        }
        return out;
    }

    @Test
    void everyLinkResolvesInsideTheRepositoryOrToAPublicSite() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path doc : docs()) {
            String text = FENCE.matcher(Files.readString(doc, StandardCharsets.UTF_8)).replaceAll("");
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                checked++;
                String label = m.group(1);
                String target = m.group(2);
                String where = doc + ": [" + label + "](" + target + ")";
                if (target.contains("shared/spec")) {
                    broken.add(where + " links a document outside the repository");
                    continue;
                }
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    if (!target.startsWith("https://") || target.matches("https://(localhost|127\\.|10\\.|192\\.168\\.).*")) {
                        broken.add(where + " is neither relative nor a public https site");
                    }
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? doc.toAbsolutePath() : doc.toAbsolutePath().getParent().resolve(file)
                        .normalize();
                if (!resolved.startsWith(ROOT)) {
                    broken.add(where + " leaves the repository");
                    continue;
                }
                if (!Files.exists(resolved)) {
                    broken.add(where + ": no such file");
                    continue;
                }
                if (anchor == null) {
                    continue;
                }
                if (resolved.toString().endsWith(".md")) {
                    if (!anchors(resolved).contains(anchor)) {
                        broken.add(where + ": no heading with that anchor");
                    }
                } else if (anchor.matches("L\\d+")) {
                    List<String> lines = Files.readAllLines(resolved, StandardCharsets.UTF_8);
                    int line = Integer.parseInt(anchor.substring(1));
                    if (line > lines.size()) {
                        broken.add(where + ": the file has " + lines.size() + " lines");
                    } else if (label.startsWith("`") && label.endsWith("`")
                            && !lines.get(line - 1).contains(label.substring(1, label.length() - 1))) {
                        broken.add(where + ": line " + line + " is now `" + lines.get(line - 1).strip() + "`");
                    }
                } else {
                    broken.add(where + ": an anchor into a file that has none");
                }
            }
        }
        assertTrue(checked > 50, "links found: " + checked);
        assertEquals(List.of(), broken);
    }

    @Test
    void theReadmeIsAFrontPage() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("README.md"), StandardCharsets.UTF_8);
        assertTrue(lines.size() <= 200, "README.md has " + lines.size() + " lines; the reference belongs in docs/");
        String readme = String.join("\n", lines);
        for (String doc : List.of("configuration", "http-api", "operating", "security", "streams", "console",
                "deploying", "benchmarks", "architecture")) {
            assertTrue(readme.contains("(docs/" + doc + ".md)"), "the README links docs/" + doc + ".md");
        }
    }

    @Test
    void everyPackageIsDescribedAndOnTheMap() throws IOException {
        Path main = Path.of("src/main/java/io/queen");
        String map = Files.readString(Path.of("docs/architecture.md"), StandardCharsets.UTF_8);
        map = map.substring(map.indexOf("## Package map"), map.indexOf("## The storage model in one screen"));
        List<String> missing = new ArrayList<>();
        try (Stream<Path> dirs = Files.walk(main)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                String name = main.relativize(dir).toString().replace('/', '.');
                if (!dir.equals(main) && !map.contains("| `" + name + "` |")) {
                    missing.add(name + ": not on the package map");
                }
                boolean hasCode;
                try (Stream<Path> files = Files.list(dir)) {
                    hasCode = files.anyMatch(f -> f.toString().endsWith(".java"));
                }
                if (hasCode && !Files.exists(dir.resolve("package-info.java"))) {
                    missing.add(name + ": no package-info.java");
                }
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void slugsAreGitHubs() {
        assertEquals("the-embedded-postgresql-of-queen-run", slug("The embedded PostgreSQL of `./queen run`"));
        assertEquals("stream-processing-streamsv1", slug("Stream processing (`/streams/v1`)"));
        assertEquals("queues-messages-and-leases", slug("Queues, messages and leases"));
    }
}
