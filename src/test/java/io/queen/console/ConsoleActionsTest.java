package io.queen.console;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.live.LiveSampler;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's live figures and actions in a real headless browser against a fresh broker (authentication off):
 * the live rates move while a load runs; a queue is created, published to (queued, then duplicate), purged and
 * deleted from the UI; a group's members show the client that holds a lease; a group is sought to the earliest
 * message and to the end, then deleted; a message's drawer tells its status per group (acked, leased by whom,
 * pending, dead-lettered); dead letters filtered by the broker are replayed into another queue and deleted in bulk
 * after a confirmation telling the broker's count, also more than one batch of them. Every action's effect is
 * checked over HTTP. Screenshots of the pages at desktop and phone width go to target/console-screenshots.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsoleActionsTest extends ConsoleBrowserTest {
    private static final Logger LOG = Logger.getLogger(ConsoleActionsTest.class);

    @Inject
    LiveSampler sampler;
    @Inject
    io.agroal.api.AgroalDataSource ds;

    /** Pushes, pops and acks on {@code queue} until stopped; counts the messages pushed. */
    private static Thread load(String queue, AtomicBoolean running, AtomicLong pushed) {
        Thread t = new Thread(() -> {
            int i = 0;
            while (running.get()) {
                pushN(queue, "p" + (i % 2), "load", i, 20);
                pushed.addAndGet(20);
                i += 20;
                JsonNode popped = pop("/api/v1/pop/queue/" + queue + "?batch=20");
                if (popped != null) {
                    ackAll(popped, "completed", null);
                }
            }
        }, "console-load");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    @Order(1)
    void liveFiguresMoveWithinTwoRefreshesWhileALoadRuns() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong pushed = new AtomicLong();
        Thread t = load("act-live", running, pushed);
        try {
            browser.refreshSeconds = 5;
            page("/", "overview", "overview-live");
            String before = k("live-push");
            String seq = browser.seq();
            // two refreshes of 5 s (the broker publishes every 2 s over a 5 s window), plus the page's own time
            new WebDriverWait(browser.driver, Duration.ofSeconds(12)).until(d -> !seq.equals(browser.seq()));
            new WebDriverWait(browser.driver, Duration.ofSeconds(12)).until(d -> !k("live-push").equals(before)
                    && !k("live-push").equals("0.00"));
            assertTrue(Double.parseDouble(k("live-push").replace(",", "")) > 0, k("live-push"));
            assertFalse(browser.all("[data-k='live-push'] + svg polyline").isEmpty(), "a sparkline is drawn");
            assertEquals(1, browser.all(".brokers-live tbody tr").size());
            browser.screenshot("overview");
            browser.assertNoConsoleErrors("overview live");

            page("/queues", "queues", "queues");
            String row = "tr[data-queue='act-live']";
            new WebDriverWait(browser.driver, Duration.ofSeconds(12)).until(d ->
                    !browser.cell(row, "push").equals("0.00"));
            assertFalse(browser.all(row + " [data-k='spark'] polyline").isEmpty());

            // the pause button stops the redraws
            browser.click("#live-toggle");
            assertEquals("paused", browser.one("body").getDomAttribute("data-live"));
            String paused = browser.seq();
            Thread.sleep(6000);
            assertEquals(paused, browser.seq(), "no redraw while paused");
            browser.click("#live-toggle");
            assertEquals("on", browser.one("body").getDomAttribute("data-live"));
        } finally {
            running.set(false);
            t.join(30_000);
            browser.refreshSeconds = 0;
        }
        LOG.infof("load pushed %d messages", pushed.get());
    }

    @Test
    @Order(2)
    void aQueueIsCreatedWithOptionsFromTheList() {
        page("/queues", "queues", "queues-before-create");
        browser.click("[data-write='create']");
        browser.fill("create-dialog", "queue", "act-orders");
        browser.fill("create-dialog", "namespace", "shop");
        browser.fill("create-dialog", "retryLimit", "7");
        browser.screenshot("queue-create-dialog");
        browser.submit("create-dialog", true);
        browser.toast("Queue act-orders created");
        browser.waitReady("queue");
        JsonNode q = get("/api/v1/resources/queues/act-orders");
        assertEquals(7, q.get("config").get("retryLimit").asInt());
        assertEquals("shop", q.get("namespace").asText());
        assertEquals(300, q.get("config").get("leaseTime").asInt(), "the other options at their defaults");
        browser.assertNoConsoleErrors("create");
    }

    @Test
    @Order(3)
    void aMessageIsPublishedThenRepublishedAsADuplicate() {
        page("/queues/act-orders", "queue", "queue");
        // keyboard only: Tab from the top of the page reaches the publish button, Enter opens the dialog
        org.openqa.selenium.JavascriptExecutor js = (org.openqa.selenium.JavascriptExecutor) browser.driver;
        js.executeScript("document.activeElement && document.activeElement.blur()");
        int tabs = 0;
        while (!"publish".equals(js.executeScript("return document.activeElement.dataset.write || null")) && tabs < 40) {
            new org.openqa.selenium.interactions.Actions(browser.driver).sendKeys(org.openqa.selenium.Keys.TAB).perform();
            tabs++;
        }
        assertTrue(tabs < 40, "the publish button is reachable with Tab");
        new org.openqa.selenium.interactions.Actions(browser.driver).sendKeys(org.openqa.selenium.Keys.ENTER).perform();
        assertEquals("partition", js.executeScript("return document.activeElement.name"),
                "the dialog opens with the focus in its first field");
        browser.fill("publish-dialog", "partition", "p1");
        browser.fill("publish-dialog", "transactionId", "order-1");
        browser.fill("publish-dialog", "payload", "{\"sku\": \"A-1\", \"qty\": 2}");
        browser.screenshot("queue-publish-dialog");
        browser.submit("publish-dialog", true);
        browser.toast("Queued in p1 at offset 0");
        JsonNode popped = pop("/api/v1/pop/queue/act-orders/partition/p1?batch=10&consumerGroup=audit");
        assertEquals("order-1", popped.get("messages").get(0).get("transactionId").asText());
        assertEquals(2, popped.get("messages").get(0).get("data").get("qty").asInt());

        browser.waitReady("queue");
        browser.click("[data-write='publish']");
        browser.fill("publish-dialog", "partition", "p1");
        browser.fill("publish-dialog", "transactionId", "order-1");
        browser.submit("publish-dialog", true);
        browser.toast("Duplicate");
        assertEquals(1, get("/api/v1/resources/queues/act-orders").get("totals").get("total").asLong(),
                "nothing written by the duplicate");
        browser.assertNoConsoleErrors("publish");
    }

    @Test
    @Order(4)
    void aQueueIsPurgedAfterAConfirmationTellingTheCount() {
        pushN("act-orders", "p0", "bulk", 0, 5);
        page("/queues/act-orders", "queue", "queue-before-purge");
        assertEquals("6", k("total"));
        browser.click("[data-write='purge']");
        assertTrue(browser.text("#confirm-text").contains("all 6 message(s)"), browser.text("#confirm-text"));
        browser.confirm(false);
        assertEquals(6, get("/api/v1/resources/queues/act-orders").get("totals").get("total").asLong(), "cancelled");
        String seq = browser.seq();
        browser.click("[data-write='purge']");
        browser.confirm(true);
        browser.toast("Purged 6 message(s)");
        browser.waitRedraw("queue", seq);
        assertEquals("0", k("total"));
        JsonNode q = get("/api/v1/resources/queues/act-orders");
        assertEquals(0, q.get("totals").get("total").asLong());
        assertEquals(7, q.get("config").get("retryLimit").asInt(), "the queue and its options stay");
        browser.assertNoConsoleErrors("purge");
    }

    @Test
    @Order(5)
    void aQueueIsDeletedOnlyWithItsNameTyped() {
        page("/queues/act-orders", "queue", "queue-before-delete");
        browser.click("[data-write='delete-queue']");
        browser.fill("delete-dialog", "confirmName", "act-order");
        browser.submit("delete-dialog", true);
        new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(d ->
                browser.text("#delete-dialog .error").contains("does not match"));
        browser.screenshot("queue-delete-dialog");
        assertEquals(200, Http.get("/api/v1/resources/queues/act-orders").status(), "not deleted");
        browser.fill("delete-dialog", "confirmName", "act-orders");
        browser.submit("delete-dialog", true);
        browser.toast("Queue act-orders deleted");
        browser.waitReady("queues");
        assertEquals(404, Http.get("/api/v1/resources/queues/act-orders").status());
        assertTrue(browser.all("tr[data-queue='act-orders']").isEmpty());
        browser.assertNoConsoleErrors("delete");
    }

    @Test
    @Order(6)
    void groupMembersShowTheLeaseHolderAndSeekAndDeleteMoveTheCursors() throws Exception {
        pushN("act-g", "p", "g", 0, 6);
        Http.Reply first = Http.send(HttpRequest.newBuilder(URI.create(Http.base()
                + "/api/v1/pop/queue/act-g?batch=2&consumerGroup=billing")).header("User-Agent", "billing-worker/3.1")
                .GET().timeout(Duration.ofSeconds(30)).build());
        assertEquals(200, first.status(), first.body());
        ackAll(json(first.body()), "completed", "billing");
        Http.Reply second = Http.send(HttpRequest.newBuilder(URI.create(Http.base()
                + "/api/v1/pop/queue/act-g?batch=1&consumerGroup=billing")).header("User-Agent", "billing-worker/3.1")
                .GET().timeout(Duration.ofSeconds(30)).build());
        assertEquals(200, second.status(), second.body());
        sampler.publishNow();

        page("/groups/billing", "group", "group");
        String lease = "tr[data-lease='" + json(second.body()).get("leaseId").asText() + "']";
        assertEquals("billing-worker/3.1", browser.cell(lease, "userAgent"));
        assertTrue(browser.cell(lease, "address").startsWith("127.0.0.1:"), browser.cell(lease, "address"));
        assertEquals("act-g", browser.cell(lease, "queue"));
        assertEquals("billing-worker/3.1", browser.cell("tr[data-popper]", "userAgent"), "a recent popper");
        String p = "section[data-queue='act-g'] tr[data-partition='p']";
        assertEquals("4", browser.cell(p, "offsetLag"));

        String seq = browser.seq();
        browser.click("section[data-queue='act-g'] [data-write='seek-earliest']");
        browser.confirm(true);
        browser.toast("Moved 1 partition");
        browser.waitRedraw("group", seq);
        assertEquals("6", browser.cell(p, "offsetLag"));
        assertEquals(6, lag("billing", "act-g", "p"), "the earliest message is next");
        assertTrue(browser.all("tr[data-lease]").isEmpty(), "a seek releases the lease");

        seq = browser.seq();
        browser.click("section[data-queue='act-g'] [data-write='seek-end']");
        browser.confirm(true);
        browser.toast("Moved 1 partition");
        browser.waitRedraw("group", seq);
        assertEquals(0, lag("billing", "act-g", "p"));

        // one partition to an offset: offset 2 is delivered next
        browser.click("section[data-queue='act-g'] tr[data-partition='p'] [data-write='seek-partition-to']");
        browser.fill("seek-dialog", "offset", "2");
        browser.screenshot("group-seek-dialog");
        seq = browser.seq();
        browser.submit("seek-dialog", true);
        browser.toast("next offset 2");
        browser.waitRedraw("group", seq);
        assertEquals(4, lag("billing", "act-g", "p"), "offsets 2..5 to read again");
        assertEquals("4", browser.cell(p, "offsetLag"));

        browser.click("[data-write='delete-group']");
        browser.confirm(true);
        browser.toast("Deleted 1 cursor");
        browser.waitReady("groups");
        assertEquals(0, get("/api/v1/consumer-groups/billing").size(), "no cursor left");
        browser.assertNoConsoleErrors("group actions");
    }

    private static long lag(String group, String queue, String partition) {
        for (JsonNode p : get("/api/v1/consumer-groups/" + group).get(queue).get("partitions")) {
            if (p.get("partition").asText().equals(partition)) {
                return p.get("offsetLag").asLong();
            }
        }
        throw new AssertionError(partition + " not in " + group);
    }

    /** Pops one message of {@code queue}/{@code partition} for {@code group} and files it as a dead letter. */
    private static void deadLetter(String queue, String partition, String group, String error) {
        JsonNode m = pop("/api/v1/pop/queue/" + queue + "/partition/" + partition + "?batch=1&consumerGroup=" + group)
                .get("messages").get(0);
        io.queen.testing.Api.ack(m.get("transactionId").asText(), m.get("partitionId").asText(),
                m.get("leaseId").asText(), "dlq", group, error);
    }

    @Test
    @Order(7)
    void messagesAcrossPartitionsSearchJumpAndStatusPerGroup() throws Exception {
        pushN("act-msg", "p0", "m", 0, 3);
        pushN("act-msg", "p1", "n", 0, 3);
        ackAll(pop("/api/v1/pop/queue/act-msg/partition/p0?batch=3&consumerGroup=g1"), "completed", "g1");
        assertEquals(1, pop("/api/v1/pop/queue/act-msg/partition/p0?batch=1&consumerGroup=g2").get("messages").size());
        deadLetter("act-msg", "p1", "g3", "bad sku");

        page("/queues/act-msg/messages", "messages", "messages");
        assertEquals(6, browser.all("#view tr[data-transaction]").size());
        assertEquals("n-2", browser.one("#view tbody tr").getDomAttribute("data-transaction"), "newest first");

        String seq = browser.seq();
        browser.one("input[name='txn']").sendKeys("m-0");
        browser.click("[data-k='search-txn']");
        browser.waitRedraw("messages", seq);
        assertEquals(1, browser.all("#view tr[data-transaction]").size());
        assertEquals("p0", browser.cell("tr[data-transaction='m-0']", "partition"));
        sampler.publishNow(); // g2's lease holder is read from the brokers' live publications
        browser.click("tr[data-transaction='m-0'] [data-k='transactionId'] button");
        browser.waitFor("#record-detail [data-k='payload']");
        assertEquals("acked", browser.text("#record-detail tr[data-group='g1'] [data-k='status']"));
        assertEquals("leased", browser.text("#record-detail tr[data-group='g2'] [data-k='status']"));
        assertTrue(browser.text("#record-detail tr[data-group='g2'] [data-k='detail']").startsWith("by 127.0.0.1:"),
                "by whom: " + browser.text("#record-detail tr[data-group='g2'] [data-k='detail']"));
        assertEquals("pending", browser.text("#record-detail tr[data-group='g3'] [data-k='status']"));
        browser.screenshot("message-drawer");

        // publish a copy from the drawer: same partition and payload, a new transaction id
        browser.click("#record-detail [data-write='publish-copy']");
        browser.submit("publish-dialog", true);
        browser.toast("Queued in p0 at offset 3");
        JsonNode copy = json(Http.post("/api/v1/fetch", "{\"entries\":[{\"queue\":\"act-msg\",\"partition\":\"p0\","
                + "\"offset\":3,\"maxBytes\":65536}]}").body()).get("entries").get(0).get("records").get(0);
        assertEquals(0, copy.get("payload").get("n").asInt(), copy.toString());
        browser.click("#drawer [data-close]");

        page("/queues/act-msg/messages", "messages", "messages-after-copy");
        browser.one("input[name='txn']").sendKeys("n-0");
        seq = browser.seq();
        browser.click("[data-k='search-txn']");
        browser.waitRedraw("messages", seq);
        browser.click("tr[data-transaction='n-0'] [data-k='transactionId'] button");
        browser.waitFor("#record-detail tr[data-group='g3']");
        assertEquals("dead-lettered", browser.text("#record-detail tr[data-group='g3'] [data-k='status']"));

        page("/queues/act-msg/messages", "messages", "messages-jump");
        // a time is typed in UTC as the page writes times; one that is no time is refused where it was typed
        browser.one("input[name='at']").sendKeys("2000-13-01 00:00:00Z");
        seq = browser.seq();
        browser.click("[data-k='jump-time']");
        assertEquals(Boolean.FALSE, ((org.openqa.selenium.JavascriptExecutor) browser.driver)
                .executeScript("return document.querySelector(\"input[name='at']\").checkValidity()"), "month 13");
        assertEquals(seq, browser.seq(), "not sent");
        browser.one("input[name='at']").clear();
        browser.one("input[name='at']").sendKeys("2000-01-01 00:00:00Z");
        browser.click("[data-k='jump-time']");
        browser.waitRedraw("messages", seq);
        assertTrue(browser.all("#view tr[data-transaction]").isEmpty(), "nothing written before 2000");
        assertEquals("2000-01-01 00:00:00Z", browser.one("input[name='at']").getDomProperty("value"),
                "the time stays as the page writes times");
        browser.assertNoConsoleErrors("messages");
    }

    @Test
    @Order(8)
    void thePartitionLogMarksDeadLettersAndJumpsToATime() {
        page("/queues/act-msg/partitions/p1", "partition", "partition-log");
        assertTrue(browser.one("tr[data-offset='0']").getDomAttribute("class").contains("dead"));
        assertEquals("dead letter: g3", browser.cell("tr[data-offset='0']", "dead"));
        assertEquals("", browser.cell("tr[data-offset='1']", "dead"));
        browser.one("input[name='at']").sendKeys("2100-01-01 00:00:00Z");
        String seq = browser.seq();
        browser.click("[data-k='jump-time']");
        browser.waitRedraw("partition", seq);
        assertEquals("2", browser.one("#view tr[data-offset]").getDomAttribute("data-offset"),
                "the newest message at or before the time starts the page");
        browser.assertNoConsoleErrors("partition log");
    }

    @Test
    @Order(9)
    void deadLettersFilteredReplayedIntoAnotherQueueAndDeletedInBulk() {
        pushN("act-dl", "p", "d", 0, 4);
        deadLetter("act-dl", "p", "w", "timeout talking to payments");
        deadLetter("act-dl", "p", "w", "bad sku 17");
        deadLetter("act-dl", "p", "w", "timeout talking to payments");
        deadLetter("act-dl", "p", "w", "bad sku 18");

        page("/dlq?queue=act-dl", "dlq", "dead-letters");
        assertEquals("4 dead letters", k("total"));
        browser.click("tr[data-transaction='d-1'] [data-k='errorMessage'] button");
        browser.waitFor("#dlq-detail [data-k='error']");
        browser.screenshot("dead-letter-drawer");
        browser.click("#drawer [data-close]");

        String seq = browser.seq();
        browser.one("input[name='error']").sendKeys("TIMEOUT");
        browser.click("form.filters button[type='submit']");
        browser.waitRedraw("dlq", seq);
        assertEquals("2 dead letters", k("total"));
        browser.click("[data-write='bulk-replay']");
        String text = browser.waitText("#bulk-replay-dialog", "Replay 2 dead letter(s)");
        browser.fill("bulk-replay-dialog", "queue", "act-retry");
        assertTrue(text.contains("Every consumer group reading"), "the fan-out warning: " + text);
        browser.screenshot("dead-letters-bulk-replay");
        seq = browser.seq();
        browser.submit("bulk-replay-dialog", true);
        browser.toast("Replayed 2");
        browser.waitRedraw("dlq", seq);
        assertEquals(2, get("/api/v1/dlq?queue=act-dl").get("total").asInt(), "the two timeouts moved");
        assertEquals(2, get("/api/v1/resources/queues/act-retry").get("totals").get("total").asLong());

        page("/dlq?queue=act-dl&error=sku", "dlq", "dead-letters-filtered");
        assertEquals("2 dead letters", k("total"));
        browser.click("[data-write='bulk-delete']");
        browser.waitText("#confirm-text", "Delete 2 dead letter(s)");
        seq = browser.seq();
        browser.confirm(true);
        browser.toast("Deleted 2 dead letter(s)");
        browser.waitRedraw("dlq", seq);
        assertEquals(0, get("/api/v1/dlq?queue=act-dl").get("total").asInt());

        // more letters than one batch (and than a page): the broker counts them all, the console goes on until
        // none is left
        String pid = Sql.one(ds, "SELECT lp.id FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id"
                + " WHERE q.name = 'act-dl'");
        Sql.exec(ds, "INSERT INTO queen.log_dlq (partition_id, consumer_group, \"offset\", transaction_id, payload, error)"
                + " SELECT '" + pid + "', 'bulk', g, 'x-' || g, '{}', 'stale' FROM generate_series(0, 1199) g");
        page("/dlq?queue=act-dl", "dlq", "dead-letters-many");
        assertEquals("1,200 dead letters", k("total"));
        browser.click("[data-write='bulk-delete']");
        browser.waitText("#confirm-text", "Delete 1,200 dead letter(s)");
        seq = browser.seq();
        browser.confirm(true);
        browser.toast("Deleted 1,200 dead letter(s)");
        browser.waitRedraw("dlq", seq);
        assertEquals(0, get("/api/v1/dlq/count?queue=act-dl").get("count").asInt());
        browser.assertNoConsoleErrors("dead letters");
    }

    @Test
    @Order(10)
    void everyPageAtDesktopAndPhoneWidthFiguresFirst() {
        List<String[]> pages = List.of(new String[] {"/", "overview"}, new String[] {"/queues", "queues"},
                new String[] {"/queues/act-msg", "queue"}, new String[] {"/queues/act-msg/messages", "messages"},
                new String[] {"/queues/act-msg/partitions/p0", "partition"}, new String[] {"/groups", "groups"},
                new String[] {"/groups/g1", "group"}, new String[] {"/dlq", "dlq"},
                new String[] {"/retention", "retention"});
        for (String[] p : pages) {
            page(p[0], p[1], "desktop-" + p[1]);
        }
        browser.size(390, 844);
        try {
            for (String[] p : pages) {
                page(p[0], p[1], "phone-" + p[1]);
                browser.assertFitsWidth(p[0]);
            }
            browser.open("/queues", "queues");
            org.openqa.selenium.WebElement pending = browser.one("tr[data-queue='act-msg'] [data-k='pending']");
            assertTrue(pending.isDisplayed() && pending.getRect().getX() + pending.getRect().getWidth() <= 390,
                    "the figures are on screen: " + pending.getRect());
            assertFalse(browser.one("tr[data-queue='act-msg'] [data-k='namespace']").isDisplayed(),
                    "namespace and task give way to the figures");
        } finally {
            browser.size(1366, 900);
        }
    }
}
