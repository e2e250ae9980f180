package io.queen.console;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.analytics.MetricsFlusher;
import io.queen.status.KnownDataSet;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;

/**
 * The console in a real headless browser against {@link KnownDataSet} (3 queues, 10 partitions, queue mode and two
 * named groups, acked, leased, failed and dead-lettered messages) with authentication off: every page draws without
 * browser console errors and shows the data set's exact figures; then the write actions (configure, seek, replay,
 * delete) are driven from the UI and checked over HTTP, the replayed dead letter by popping it. Read pages run
 * first (the figures), write actions after (ordered). A screenshot of each page goes to target/console-screenshots.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsoleTest extends ConsoleBrowserTest {
    private static final Logger LOG = Logger.getLogger(ConsoleTest.class);

    @Inject
    AgroalDataSource ds;
    @Inject
    MetricsFlusher flusher;
    @Inject
    io.queen.live.LiveSampler live;

    @Override
    void prepare() throws Exception {
        KnownDataSet.build(ds);
        flusher.flushNow();
        // this broker's live row exists before any page is drawn (its timer's first round may come later)
        live.publishNow();
        Http.Reply t = Http.post("/api/v1/traces", "{\"transactionId\":\"o0-3\",\"partitionId\":\""
                + KnownDataSet.pid(ds, "st-orders", "p0") + "\",\"eventType\":\"processing\","
                + "\"traceNames\":[\"order-42\"],\"data\":{\"step\":\"charged\"}}");
        assertEquals(201, t.status(), t.body());
        String plain = "(SELECT id FROM queen.queues WHERE name = 'st-plain')";
        String c0 = "'" + KnownDataSet.pid(ds, "st-plain", "c0") + "'";
        Sql.exec(ds, "INSERT INTO queen.retention_history (partition_id, queue_id, messages_deleted, retention_type,"
                + " executed_at) VALUES (" + c0 + ", " + plain + ", 7, 'retention', now() - interval '10 minutes'),"
                + " (" + c0 + ", " + plain + ", 3, 'completed_retention', now() - interval '5 minutes')");
    }

    /** No layout shift, and drawn in bounded time. */
    @Override
    void drawn(String route) {
        assertTrue(browser.layoutShift() < 0.1, "layout shift on " + route + ": " + browser.layoutShift());
        LOG.infof("console %s drawn %d ms after navigation start", route, browser.drawnAfterMs());
        // typically 0.2-0.8 s (the first page of a fresh broker ~1.4 s); the bound only catches a page that hangs
        assertTrue(browser.drawnAfterMs() < 5000, route + " drawn after " + browser.drawnAfterMs() + " ms");
    }

    @Test
    @Order(1)
    void consoleIsServedUnderRootAndTheApiStaysTheApi() {
        Http.Reply index = Http.get("/");
        assertEquals(200, index.status());
        assertTrue(index.body().contains("<title>Queen console</title>"), index.body());
        Http.Reply js = Http.get("/console/app.js");
        assertEquals(200, js.status());
        assertTrue(js.body().contains("import "), "an ES module");
        assertEquals(200, Http.get("/console/style.css").status());
        assertEquals(200, Http.get("/api/v1/resources/overview").status());
        assertEquals(200, Http.get("/health").status());
        assertEquals(200, Http.get("/metrics").status());
        assertEquals(200, Http.get("/metrics/prometheus").status());
        assertEquals(200, Http.get("/q/health/live").status());
        Http.Reply unknown = Http.get("/api/v1/no-such-route");
        assertEquals(404, unknown.status());
        assertFalse(unknown.body().contains("Queen console"), "an unknown API route is not the console");
    }

    @Test
    @Order(1)
    void consoleFilesCarrySecurityHeaders() throws Exception {
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        for (String path : List.of("/", "/index.html", "/console/app.js", "/console/style.css",
                "/console/pages/queue.js")) {
            java.net.http.HttpResponse<Void> r = client.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(Http.base() + path)).build(), java.net.http.HttpResponse.BodyHandlers.discarding());
            assertEquals(200, r.statusCode(), path);
            String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
            assertTrue(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'")
                    && !csp.contains("unsafe"), path + ": " + csp);
            assertEquals("DENY", r.headers().firstValue("X-Frame-Options").orElse(null), path);
            assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(null), path);
        }
    }

    @Test
    @Order(2)
    void overviewShowsFiguresChartsBrokersAndSwitches() {
        page("/", "overview", "overview");
        assertEquals(List.of("3", "10", "61", "41", "8", "11", "1", "1", "10"),
                List.of(k("queues"), k("partitions"), k("total"), k("pending"), k("processing"), k("completed"),
                        k("failed"), k("deadLetter"), k("maxOffsetLag")));
        // the rates are drawn for complete minutes only: none yet when the broker started in this minute
        for (String chart : List.of("depth", "dlq")) {
            assertFalse(browser.all("[data-chart='" + chart + "'] svg polyline").isEmpty(), chart + " has lines");
        }
        assertTrue(browser.text("[data-chart='depth'] .legend").contains("pending: 41"),
                browser.text("[data-chart='depth'] .legend"));
        assertTrue(browser.text("[data-chart='dlq'] .legend").contains("dead letters: 1"));
        List<WebElement> brokers = browser.all(".brokers-minute tbody tr");
        assertEquals(1, brokers.size(), "the one broker of this test");
        assertEquals("61", browser.cell(".brokers-minute tbody tr", "pushMessages"));
        assertEquals("reporting", browser.cell(".brokers-minute tbody tr", "state"));
        assertEquals(1, browser.all(".brokers-live tbody tr").size(), "this broker publishes live figures");
        assertTrue(browser.text("[data-k='health']").contains("healthy"));
        assertEquals("off", k("pushMaintenance"));
        assertEquals("off", k("popMaintenance"));
        assertEquals(2, browser.all("[data-write='maintenance']").size(), "admin (auth off) sees the toggles");
    }

    @Test
    @Order(3)
    void queuesListFiguresLagPerGroupAndSearch() {
        page("/queues", "queues", "queues");
        assertEquals("3 queues", k("count"));
        String orders = "tr[data-queue='st-orders']";
        assertEquals(List.of("4", "40", "25", "8", "1"),
                browser.cells(orders, "partitions", "total", "pending", "processing", "deadLetter"));
        // lag over every partition: p0 6, p1 7, p2 and p3 untouched by queue mode, 10 each
        assertEquals("33", browser.text(orders + " [data-group='__QUEUE_MODE__'] b"));
        assertEquals("30", browser.text(orders + " [data-group='g1'] b"), "p0..p2 untouched by g1");
        assertEquals("40", browser.text(orders + " [data-group='g2'] b"));
        assertEquals("15", browser.text("tr[data-queue='st-events'] [data-group='__QUEUE_MODE__'] b"));
        assertEquals("6", browser.cell("tr[data-queue='st-plain']", "total"));

        String seq = browser.seq();
        browser.one("input[name='search']").sendKeys("PLA");
        browser.click("form.filters button[type='submit']");
        browser.waitRedraw("queues", seq);
        assertEquals(1, browser.all("#view tbody tr").size());
        assertEquals("st-plain", browser.cell("#view tbody tr", "name"));
        browser.assertNoConsoleErrors("queue search");
    }

    @Test
    @Order(4)
    void queueDetailPartitionsWatermarksGroupsAndConfig() {
        page("/queues/st-orders", "queue", "queue");
        assertEquals(List.of("40", "25", "8", "6", "0", "1"),
                List.of(k("total"), k("pending"), k("processing"), k("completed"), k("failed"), k("deadLetter")));
        Map<String, List<String>> expected = Map.of(
                "p0", List.of("0", "9", "10", "3", "3", "4", "0"),
                "p1", List.of("0", "9", "10", "7", "0", "2", "1"),
                "p2", List.of("0", "9", "10", "10", "0", "0", "0"),
                "p3", List.of("0", "9", "10", "5", "5", "0", "0"));
        expected.forEach((p, figures) -> {
            String row = "tr[data-partition='" + p + "']";
            assertEquals(figures, browser.cells(row, "logStart", "lastOffset", "total", "pending", "processing",
                    "completed", "deadLetter"), p);
        });
        assertEquals("33", browser.cell("tr[data-group='__QUEUE_MODE__']", "totalLag"));
        assertEquals("40", browser.cell("tr[data-group='g2']", "totalLag"));
        assertEquals("300", browser.one("input[name='leaseTime']").getDomProperty("value"));
        assertEquals("3", browser.one("input[name='retryLimit']").getDomProperty("value"));
        assertEquals(1, browser.all("[data-write='configure']").size());
    }

    @Test
    @Order(5)
    void partitionLogBrowsesByOffsetWithPayloadAndTraces() {
        page("/queues/st-orders/partitions/p0", "partition", "partition-log");
        assertEquals("0", k("logStart"));
        assertEquals("9", k("lastOffset"));
        List<WebElement> rows = browser.all("#view tr[data-offset]");
        assertEquals(10, rows.size());
        browser.click("tr[data-offset='3'] [data-k='transactionId'] button");
        browser.waitFor("#record-detail [data-k='payload']");
        assertEquals("o0-3", browser.text("#record-detail [data-k='transactionId']"));
        assertEquals("{\n  \"n\": 3\n}", browser.text("#record-detail [data-k='payload']"));
        assertEquals("processing", browser.text("#record-detail [data-k='event_type']"));
        assertEquals("order-42", browser.text("#record-detail [data-k='trace_names']"));
        browser.screenshot("partition-record");
        browser.assertNoConsoleErrors("record detail");

        page("/queues/st-orders/partitions/p0?offset=5", "partition", "partition-log-offset-5");
        List<WebElement> later = browser.all("#view tr[data-offset]");
        assertEquals(5, later.size());
        assertEquals("5", later.get(0).getDomAttribute("data-offset"));
    }

    @Test
    @Order(6)
    void consumerGroupsAndOneGroupsLagPerPartition() {
        page("/groups", "groups", "groups");
        String qm = "tr[data-group='__QUEUE_MODE__'][data-queue='st-orders']";
        assertEquals(List.of("2", "33", "1"), List.of(browser.cell(qm, "members"), browser.cell(qm, "totalLag"),
                browser.cell(qm, "activeLeases")));
        String g2 = "tr[data-group='g2'][data-queue='st-orders']";
        assertEquals(List.of("1", "40", "1"), List.of(browser.cell(g2, "members"), browser.cell(g2, "totalLag"),
                browser.cell(g2, "activeLeases")));
        assertEquals("10", browser.cell("tr[data-group='g1'][data-queue='st-events']", "totalLag"), "e1, e2 untouched");

        page("/groups/__QUEUE_MODE__", "group", "group");
        String p1 = "section[data-queue='st-orders'] tr[data-partition='p1']";
        // shown as Kafka's tools show a committed offset: the next offset to read, the cursor's offset + 1
        assertEquals(List.of("3", "7", "2.0 h"), List.of(browser.cell(p1, "committedOffset"),
                browser.cell(p1, "offsetLag"), browser.cell(p1, "timeLagSeconds")));
        String p0 = "section[data-queue='st-orders'] tr[data-partition='p0']";
        assertEquals(List.of("4", "6"), List.of(browser.cell(p0, "committedOffset"), browser.cell(p0, "offsetLag")));
        assertTrue(browser.cell(p0, "leaseActive").startsWith("active"), browser.cell(p0, "leaseActive"));
        assertEquals("5", browser.cell("section[data-queue='st-events'] tr[data-partition='e1']", "offsetLag"));
    }

    @Test
    @Order(7)
    void retentionActivityShowsWhatWasDeleted() {
        page("/retention", "retention", "retention");
        assertEquals(List.of("10", "7", "3", "0", "2"), List.of(k("totalMsgs"), k("retentionMsgs"),
                k("completedRetentionMsgs"), k("evictionMsgs"), k("eventCount")));
        String row = "tr[data-queue='st-plain'][data-type='retention']";
        assertEquals("7", browser.cell(row, "messages"));
        assertEquals("3", browser.cell("tr[data-queue='st-plain'][data-type='completed_retention']", "messages"));
        assertFalse(browser.all("[data-chart='retention'] svg polyline").isEmpty());
    }

    @Test
    @Order(8)
    void phoneWidthFitsWithoutHorizontalScrolling() {
        browser.size(390, 844);
        try {
            for (String[] p : List.of(new String[] {"/", "overview"}, new String[] {"/queues", "queues"},
                    new String[] {"/queues/st-orders", "queue"}, new String[] {"/dlq", "dlq"})) {
                page(p[0], p[1], "phone-" + p[1]);
                browser.assertFitsWidth(p[0]);
            }
        } finally {
            browser.size(1366, 900);
        }
    }

    @Test
    @Order(9)
    void configurationIsEditedFromTheQueuePage() {
        page("/queues/st-events", "queue", "queue-events");
        WebElement retry = browser.one("input[name='retryLimit']");
        retry.clear();
        retry.sendKeys("7");
        browser.click("[data-write='configure']");
        browser.toast("Configuration saved");
        JsonNode cfg = KnownDataSet.get("/api/v1/resources/queues/st-events").get("config");
        assertEquals(7, cfg.get("retryLimit").asInt());
        assertEquals(300, cfg.get("leaseTime").asInt(), "the other options kept");
        browser.assertNoConsoleErrors("configure");
    }

    @Test
    @Order(10)
    void seekToEndAndToATimeAfterConfirmation() {
        page("/groups/g2", "group", "group-g2");
        String p3 = "section[data-queue='st-orders'] tr[data-partition='p3']";
        assertEquals("10", browser.cell(p3, "offsetLag"));
        browser.click("section[data-queue='st-orders'] [data-write='seek-end']");
        browser.confirm(false);
        assertEquals(10, lag("g2", "st-orders", "p3"), "cancelled: nothing moved");
        String seq = browser.seq();
        browser.click("section[data-queue='st-orders'] [data-write='seek-end']");
        browser.confirm(true);
        browser.toast("Moved 1 partition");
        browser.waitRedraw("group", seq);
        assertEquals("0", browser.cell(p3, "offsetLag"));
        assertEquals(0, lag("g2", "st-orders", "p3"));

        page("/groups/g1", "group", "group-g1");
        assertEquals("0", browser.cell("section[data-queue='st-events'] tr[data-partition='e0']", "offsetLag"));
        WebElement when = browser.one("section[data-queue='st-events'] input[name='seek-time']");
        ((JavascriptExecutor) browser.driver).executeScript("arguments[0].value = '2000-01-01T00:00:00'", when);
        seq = browser.seq();
        browser.click("section[data-queue='st-events'] [data-write='seek-time']");
        browser.confirm(true);
        browser.toast("Moved 1 partition");
        browser.waitRedraw("group", seq);
        assertEquals("5", browser.cell("section[data-queue='st-events'] tr[data-partition='e0']", "offsetLag"));
        assertEquals(5, lag("g1", "st-events", "e0"));
        browser.assertNoConsoleErrors("seek");
    }

    private static long lag(String group, String queue, String partition) {
        for (JsonNode p : KnownDataSet.get("/api/v1/consumer-groups/" + group).get(queue).get("partitions")) {
            if (p.get("partition").asText().equals(partition)) {
                return p.get("offsetLag").asLong();
            }
        }
        throw new AssertionError(partition + " not in " + group);
    }

    @Test
    @Order(11)
    void deadLetterReplayedFromTheUiIsDeliveredToAConsumer() {
        page("/dlq", "dlq", "dead-letters");
        assertEquals("1 dead letter", k("total"));
        String row = "tr[data-transaction='o1-2']";
        assertEquals(List.of("st-orders", "p1", "queue mode", "2", "poison pill"),
                browser.cells(row, "queue", "partition", "consumerGroup", "offset", "errorMessage"));
        browser.click(row + " [data-k='errorMessage'] button");
        browser.waitFor("#dlq-detail [data-k='error']");
        assertEquals("poison pill", browser.text("#dlq-detail [data-k='error']"));
        assertEquals("{\n  \"n\": 2\n}", browser.text("#dlq-detail [data-k='payload']"));
        browser.screenshot("dead-letter-detail");

        String seq = browser.seq();
        browser.click("#dlq-detail [data-write='replay']");
        browser.confirm(true);
        browser.toast("Replayed at offset 10");
        browser.waitRedraw("dlq", seq);
        assertEquals("0 dead letters", k("total"));
        browser.assertNoConsoleErrors("replay");

        // a queue-mode consumer of p1 gets the pending offsets 3..9, then the replayed message at offset 10
        List<String> txns = new ArrayList<>();
        JsonNode replayed = null;
        for (int i = 0; i < 5 && replayed == null; i++) {
            JsonNode popped = pop("/api/v1/pop/queue/st-orders/partition/p1?batch=100");
            if (popped == null) {
                break;
            }
            for (JsonNode m : popped.get("messages")) {
                txns.add(m.get("transactionId").asText());
                if (m.get("transactionId").asText().startsWith("dlq:")) {
                    replayed = m;
                }
            }
            ackAll(popped, "completed", null);
        }
        assertTrue(replayed != null, "the replayed message is delivered: " + txns);
        assertEquals(2, replayed.get("data").get("n").asInt(), replayed.toString());
        assertEquals("o1-3", txns.get(0), "after the pending ones: " + txns);
    }

    @Test
    @Order(12)
    void deadLetterFilteredAndDeletedAfterConfirmation() {
        KnownDataSet.configure("st-dl", null, null, "{}");
        pushN("st-dl", "p", "d", 0, 1);
        JsonNode m = pop("/api/v1/pop/queue/st-dl/partition/p?batch=1").get("messages").get(0);
        ack(m.get("transactionId").asText(), m.get("partitionId").asText(), m.get("leaseId").asText(), "dlq", null,
                "bad input");

        page("/dlq", "dlq", "dead-letters-filter");
        String seq = browser.seq();
        browser.one("input[name='queue']").sendKeys("st-events");
        browser.click("form.filters button[type='submit']");
        browser.waitRedraw("dlq", seq);
        assertEquals("0 dead letters", k("total"));
        assertTrue(browser.text("#view .empty").contains("match the filter"));

        page("/dlq?queue=st-dl", "dlq", "dead-letters-st-dl");
        assertEquals("1 dead letter", k("total"));
        browser.click("tr[data-transaction='d-0'] [data-k='errorMessage'] button");
        browser.waitFor("#dlq-detail [data-write='delete']");
        browser.click("#dlq-detail [data-write='delete']");
        browser.confirm(false);
        assertEquals(1, json(Http.get("/api/v1/dlq?queue=st-dl").body()).get("total").asInt(), "cancelled");
        seq = browser.seq();
        browser.click("#dlq-detail [data-write='delete']");
        browser.confirm(true);
        browser.toast("Dead letter deleted");
        browser.waitRedraw("dlq", seq);
        assertEquals("0 dead letters", k("total"));
        assertEquals(0, json(Http.get("/api/v1/dlq?queue=st-dl").body()).get("total").asInt());
        browser.assertNoConsoleErrors("delete");
    }
}
