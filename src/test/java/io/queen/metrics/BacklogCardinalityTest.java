package io.queen.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.analytics.MetricsFlusher;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A scrape stays bounded whatever the partitions and groups: a queue of 10,000 partitions read by three groups,
 * and a queue read by more groups than {@code queen.metrics.max-groups} (100), give a handful of backlog series
 * and at most 100 group labels plus {@code _other}, never a series per partition.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class BacklogCardinalityTest {
    static final int PARTITIONS = 10_000;
    static final int GROUPS = 150;
    static final List<String> FAMILIES = List.of("queen_queue_pending_messages", "queen_queue_oldest_pending_age_seconds",
            "queen_group_lag_messages", "queen_group_lag_seconds");
    private static final Pattern GROUP = Pattern.compile("group=\"([^\"]*)\"");

    @Inject
    MetricsFlusher flusher;
    @Inject
    AgroalDataSource ds;

    @Test
    void tenThousandPartitionsAndMoreGroupsThanTheCapGiveABoundedScrape() {
        // what the scrape held before (the test JVM's broker served other test classes: their routes' histograms)
        long before = seriesOf(Http.get("/metrics/prometheus").body()).size();
        for (int from = 0; from < PARTITIONS; from += 2_000) {
            StringBuilder body = new StringBuilder("{\"items\":[");
            for (int i = from; i < from + 2_000; i++) {
                body.append(i == from ? "" : ",").append("{\"queue\":\"card\",\"partition\":\"p").append(i)
                        .append("\",\"payload\":{\"n\":").append(i).append("}}");
            }
            Http.Reply r = Http.post("/api/v1/push", body.append("]}").toString());
            assertEquals(201, r.status(), r.body());
        }
        Http.Reply r = Http.post("/api/v1/push",
                "{\"items\":[{\"queue\":\"card-groups\",\"partition\":\"Default\",\"payload\":{\"n\":1}}]}");
        assertEquals(201, r.status(), r.body());
        // cursors written directly: 3 groups on every partition of card (one consumed its message), 150 on card-groups
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed)"
                + " SELECT p.id, g, CASE WHEN g = 'cg-0' THEN p.last_offset ELSE p.log_start - 1 END"
                + " FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.name = 'card',"
                + " unnest(ARRAY['cg-0', 'cg-1', 'cg-2']) g");
        Sql.exec(ds, "INSERT INTO queen.log_consumers (partition_id, consumer_group, committed)"
                + " SELECT p.id, 'many-' || g, p.log_start - 1"
                + " FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.name = 'card-groups',"
                + " generate_series(1, " + GROUPS + ") g");
        assertEquals(PARTITIONS, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions p JOIN queen.queues q"
                + " ON q.id = p.queue_id AND q.name = 'card'"));

        long t0 = System.nanoTime();
        flusher.sampleBacklogNow();
        long sampleMs = (System.nanoTime() - t0) / 1_000_000;
        String scrape = Http.get("/metrics/prometheus").body();
        List<String> series = seriesOf(scrape);
        List<String> backlog = series.stream().filter(l -> FAMILIES.stream().anyMatch(l::startsWith)).toList();
        Set<String> groups = new TreeSet<>();
        for (String l : backlog) {
            Matcher m = GROUP.matcher(l);
            if (m.find()) {
                groups.add(m.group(1));
            }
        }
        System.out.printf("backlog cardinality: %d partitions, %d + 3 groups: %d backlog/lag series, %d group labels,"
                + " %d series in the whole scrape (%d before); sample + publish %d ms%n", PARTITIONS, GROUPS,
                backlog.size(), groups.size(), series.size(), before, sampleMs);
        assertTrue(backlog.contains("queen_queue_pending_messages{queue=\"card\"} 10000.0"), "pending of card");
        assertTrue(groups.contains(OpsMeter.OTHER), "the groups beyond the cap are summed: " + groups);
        assertTrue(groups.size() <= 101, "at most max-groups labels plus _other: " + groups.size());
        assertTrue(backlog.size() <= 2 * 2 + 2 * (101 + 3), "a bounded set of backlog series: " + backlog.size());
        assertTrue(series.size() - before < 1_000, "the whole scrape grew far less than one series per partition: "
                + before + " -> " + series.size());
    }

    private static List<String> seriesOf(String scrape) {
        return scrape.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).map(l -> l.replace(",}", "}")).toList();
    }
}
