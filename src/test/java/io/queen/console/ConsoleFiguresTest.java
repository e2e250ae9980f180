package io.queen.console;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.json;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.analytics.MetricsFlusher;
import io.queen.live.LiveSampler;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import java.util.ArrayList;
import java.util.List;
import jakarta.inject.Inject;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.WebElement;

/**
 * The console's charts and counts tell what was true: the rate chart draws complete minutes only (never the running
 * one as a zero); the pending and dead-letter history is what the queues held then, also after a bulk replay
 * emptied the dead letters; an empty chart labels its window at the size of every label, not a made-up scale in
 * letters twice that size; a bulk replay confirmed for N letters replays those N, not letters filed while the
 * dialog was open; failure times are typed in UTC as the page writes them.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsoleFiguresTest extends ConsoleBrowserTest {
    @Inject
    MetricsFlusher flusher;
    @Inject
    LiveSampler live;

    /** Pushes {@code n} messages to {@code queue} and dead-letters them all. */
    private static void deadLetters(String queue, String prefix, int n) {
        pushN(queue, "p", prefix, 0, n);
        for (int i = 0; i < n; i++) {  // a failed ack files its message and gives the rest of the lease back
            ackAll(pop("/api/v1/pop/queue/" + queue + "?batch=1"), "dlq", null);
        }
    }

    @Override
    void prepare() throws Exception {
        pushN("fig", "p", "f", 0, 5);
        deadLetters("fig", "d", 25);
        flusher.flushNow();  // this minute's sample: 5 pending, 25 dead letters
        Http.Reply r = Http.post("/api/v1/dlq/replay", "{\"queue\":\"fig\"}");
        assertEquals(25, json(r.body()).get("replayed").asInt(), r.body());
        live.publishNow();
    }

    /** The points of the line named {@code name} in chart {@code key}: [timeMs, value]. */
    private List<double[]> points(String key, String name) {
        for (WebElement line : browser.all("[data-chart='" + key + "'] svg polyline")) {
            if (line.findElement(org.openqa.selenium.By.tagName("title")).getDomProperty("textContent").equals(name)) {
                List<double[]> out = new ArrayList<>();
                for (JsonNode p : json(line.getDomAttribute("data-points"))) {
                    out.add(new double[] {p.get(0).asDouble(), p.get(1).asDouble()});
                }
                return out;
            }
        }
        return List.of();
    }

    private static List<Double> values(List<double[]> points) {
        return points.stream().map(p -> p[1]).toList();
    }

    @Test
    @Order(1)
    void theChartsDrawCompleteMinutesAndTheHistoryAsItWas() {
        page("/", "overview", "overview-history");
        long minute = System.currentTimeMillis() / 60_000L * 60_000L;
        for (String series : List.of("push", "pop", "ack")) {
            for (double[] p : points("rates", series)) {
                assertTrue(p[0] + 60_000 <= minute, series + ": a point of the running minute is drawn at "
                        + (long) p[0] + " (this minute began at " + minute + ")");
            }
        }
        List<Double> dead = values(points("dlq", "dead letters"));
        assertTrue(dead.contains(25.0), "the sampled minute held 25 dead letters: " + dead);
        assertEquals(0.0, dead.get(dead.size() - 1), "none now, after the replay: " + dead);
        List<Double> pending = values(points("depth", "pending"));
        assertTrue(pending.contains(5.0), "the sampled minute held 5 pending messages: " + pending);
        assertEquals(30.0, pending.get(pending.size() - 1), "30 now: " + pending);
        assertTrue(browser.text("[data-chart='dlq'] .legend").contains("dead letters: 0"));
    }

    @Test
    @Order(2)
    void anEmptyChartLabelsItsWindowAndNoMadeUpScale() {
        page("/retention?window=1h", "retention", "retention-empty");
        List<String> labels = browser.all("[data-chart='retention'] svg text.axis").stream()
                .map(e -> e.getDomProperty("textContent")).toList();
        assertEquals("0", labels.get(0), labels.toString());
        assertEquals(3, labels.stream().filter(l -> l.matches("\\d\\d:\\d\\d")).count(), "the window's times: " + labels);
        assertTrue(labels.contains("no data in this window"), labels.toString());
        assertFalse(labels.contains("0.50") || labels.contains("1"), "no scale without data: " + labels);
        // the chart spans the page; its labels keep the size of the overview's narrow charts' labels
        double height = browser.one("[data-chart='retention'] svg text.axis").getRect().getHeight();
        assertTrue(height <= 24, "an axis label " + height + " px high");
    }

    @Test
    @Order(3)
    void aBulkReplayReplaysTheLettersItConfirmed() {
        deadLetters("fig-dl", "a", 3);
        page("/dlq?queue=fig-dl", "dlq", "dead-letters-exact");
        // failure times are typed in UTC as the page writes them, and shown back so
        String seq = browser.seq();
        browser.one("input[name='from']").sendKeys("2000-01-01 00:00:00Z");
        browser.click("form.filters button[type='submit']");
        browser.waitRedraw("dlq", seq);
        assertEquals("2000-01-01 00:00:00Z", browser.one("input[name='from']").getDomProperty("value"));
        assertEquals("3 dead letters", k("total"));

        browser.click("[data-write='bulk-replay']");
        browser.waitText("#bulk-replay-dialog", "Replay 3 dead letter(s)");
        deadLetters("fig-dl", "late", 2);  // filed while the operator reads the dialog
        seq = browser.seq();
        browser.submit("bulk-replay-dialog", true);
        browser.toast("Replayed 3");
        browser.waitRedraw("dlq", seq);
        assertEquals(2, get("/api/v1/dlq/count?queue=fig-dl").get("count").asInt(), "the two late letters stay");
        assertEquals("2 dead letters", k("total"));
        browser.assertNoConsoleErrors("bulk replay");
    }
}
