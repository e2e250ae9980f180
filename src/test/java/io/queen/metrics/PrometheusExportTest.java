package io.queen.metrics;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.analytics.MetricsFlusher;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the broker exports at {@code /metrics/prometheus}, with every family present (traffic, a consumer group, a
 * dead letter, a flush, a backlog sample, a Kafka request), against what ships and what is documented: every
 * metric the alert rules and the dashboard name is exported ({@code promtool check rules} too, when promtool is on
 * PATH), and the family table of docs/operating.md names exactly the exported families but Micrometer's own
 * JVM/process families.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PrometheusExportTest extends KafkaListenerClients {
    static final Path RULES = Path.of("deploy/monitoring/queen-alerts.yaml");
    static final Path DASHBOARD = Path.of("deploy/monitoring/queen-dashboard.json");
    static final Path OPERATING = Path.of("docs/operating.md");
    /** Micrometer's and Quarkus' own families, listed as a group in the doc rather than one by one. */
    static final Pattern GENERIC = Pattern.compile("(jvm|process|system|worker_pool|netty|tcp|http_server_active|"
            + "http_server_bytes|http_server_connections|http_server_websocket)_.*");
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);
    /** A metric name in an expression: the broker's families all start so. */
    private static final Pattern NAME = Pattern.compile("\\b(?:queen|http_server)_[a-z0-9_]+");

    @Inject
    MetricsFlusher flusher;
    @Inject
    io.queen.retention.RetentionCycle retention;

    private static boolean prepared;

    @BeforeEach
    void everyFamilyPresent() throws Exception {
        if (prepared) {
            return;
        }
        configure("export-q", "{\"retryLimit\":0}");
        pushN("export-q", "Default", "e", 0, 3);
        JsonNode p = pop("/api/v1/pop/queue/export-q/partition/Default?batch=1&consumerGroup=g&subscriptionMode=all");
        ackAll(p, "completed", "g");
        JsonNode one = pop("/api/v1/pop/queue/export-q/partition/Default?batch=1");
        JsonNode m = one.get("messages").get(0);
        ack(m.get("transactionId").asText(), m.get("partitionId").asText(), m.get("leaseId").asText(), "failed",
                null, "boom");
        createTopicsAt(bootstrap(), new NewTopic("export-t", 1, (short) 1));
        flusher.flushNow();
        flusher.sampleBacklogNow();
        retention.dueCap();  // the retention families exist once the cycle does
        prepared = true;
    }

    /** Family names as the scrape's {@code # TYPE} lines give them, with their types. */
    static List<String[]> families() {
        String body = Http.get("/metrics/prometheus").body();
        List<String[]> out = new ArrayList<>();
        Matcher t = TYPE.matcher(body);
        while (t.find()) {
            out.add(new String[] {t.group(1), t.group(2)});
        }
        return out;
    }

    /** Whether {@code name} (as written in an expression) is a series of an exported family. */
    static boolean exported(String name, List<String[]> families) {
        for (String[] f : families) {
            if (f[0].equals(name)) {
                return true;
            }
            boolean histogram = f[1].equals("histogram") || f[1].equals("summary");
            if (histogram && (name.equals(f[0] + "_bucket") || name.equals(f[0] + "_sum")
                    || name.equals(f[0] + "_count"))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void everyMetricTheRulesAndTheDashboardNameIsExported() throws Exception {
        List<String[]> families = families();
        Set<String> used = new TreeSet<>();
        for (Path p : List.of(RULES, DASHBOARD)) {
            Matcher n = NAME.matcher(Files.readString(p, StandardCharsets.UTF_8));
            while (n.find()) {
                used.add(n.group());
            }
        }
        assertTrue(used.size() > 15, "the files name the broker's families: " + used);
        Set<String> missing = new TreeSet<>();
        for (String u : used) {
            if (!exported(u, families)) {
                missing.add(u);
            }
        }
        assertEquals(Set.of(), missing, "named by the rules or the dashboard but not exported");
        assertTrue(Files.readString(DASHBOARD).contains("\"panels\""));
        Api.M.readTree(DASHBOARD.toFile());  // valid JSON
        promtoolCheck();
    }

    private static void promtoolCheck() throws IOException, InterruptedException {
        boolean onPath = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            onPath |= !dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"));
        }
        if (!onPath) {
            return;
        }
        Process p = new ProcessBuilder("promtool", "check", "rules", RULES.toString()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }

    @Test
    void theOperatingDocTableNamesExactlyTheExportedFamilies() throws IOException {
        List<String[]> families = families();
        Set<String> timers = new TreeSet<>();
        for (String[] f : families) {
            if (f[1].equals("histogram") || f[1].equals("summary")) {
                timers.add(f[0]);
            }
        }
        Set<String> exported = new TreeSet<>();
        for (String[] f : families) {
            // a timer's _max gauge is documented with its histogram
            boolean timerMax = f[0].endsWith("_max") && timers.contains(f[0].substring(0, f[0].length() - 4));
            if (!timerMax && !GENERIC.matcher(f[0]).matches()) {
                exported.add(f[0]);
            }
        }
        Set<String> documented = documented(false);
        Set<String> undocumented = new TreeSet<>(exported);
        undocumented.removeAll(documented);
        Set<String> gone = new TreeSet<>(documented(true));
        gone.removeAll(exported);
        assertEquals(Set.of(), undocumented, "exported, missing from the table in docs/operating.md");
        assertEquals(Set.of(), gone, "in the table of docs/operating.md, not exported");
        assertFalse(documented.isEmpty());
    }

    /**
     * The first column of the family table of docs/operating.md ("| `name` | type | labels | meaning |"); with
     * {@code always}, only the rows whose family always exists (a meaning saying "(only ..." names a conditional one).
     */
    static Set<String> documented(boolean always) throws IOException {
        String doc = Files.readString(OPERATING, StandardCharsets.UTF_8);
        int start = doc.indexOf("| metric | type | labels | meaning |");
        assertTrue(start >= 0, "operating.md has the family table");
        Set<String> out = new TreeSet<>();
        for (String line : doc.substring(start).lines().skip(2).toList()) {
            if (!line.startsWith("|")) {
                break;
            }
            Matcher m = Pattern.compile("^\\| `([a-z_:0-9]+)`").matcher(line);
            assertTrue(m.find(), "a table row starts with a metric name: " + line);
            if (!always || !line.contains("(only ")) {
                out.add(m.group(1));
            }
        }
        return out;
    }
}
