package io.queen.console;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What every console browser test shares: its data set up once ({@link #prepare}), then one headless browser for
 * the whole class, started before the first test (a {@code @BeforeAll} would run before Quarkus set the test port)
 * and closed after the last; opening a page with its screenshot and a check for browser console errors; reading a
 * figure; a 200 answer over HTTP. One instance per class (PER_CLASS); not thread-safe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConsoleBrowserTest {
    Browser browser;

    /** The class's data, created once before the browser starts. */
    void prepare() throws Exception {
    }

    /** Extra checks of a page {@link #page} has just opened, before its screenshot. */
    void drawn(String route) {
    }

    @BeforeEach
    void startBrowser() throws Exception {
        if (browser == null) {
            prepare();
            browser = Browser.start(Http.base());
        }
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    /** Opens a page afresh, checks it, saves a screenshot and checks it drew without console errors. */
    void page(String route, String page, String screenshot) {
        browser.open(route, page);
        drawn(route);
        browser.screenshot(screenshot);
        browser.assertNoConsoleErrors(route);
    }

    /** The text of the current page's figure {@code [data-k=key]}. */
    String k(String key) {
        return browser.text("#view [data-k='" + key + "']");
    }

    /** A 200 answer's JSON. */
    static JsonNode get(String path) {
        Http.Reply r = Http.get(path);
        assertEquals(200, r.status(), path + ": " + r.body());
        return json(r.body());
    }
}
