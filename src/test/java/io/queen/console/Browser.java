package io.queen.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through chromedriver (both installed by scripts/install-test-tools.sh), pointed at
 * the console of the broker under test. Pages are loaded afresh (a new query string each time) and are ready when
 * the console marks {@code #view[data-ready]}. Console errors are read from the browser log. One instance per test
 * class; not thread-safe.
 */
final class Browser implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Browser.class);
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    final ChromeDriver driver;
    private final String base;
    private int loads;
    /** The console's refresh interval in seconds for the pages opened next; 0 (the default here) = paused. */
    int refreshSeconds;

    private Browser(ChromeDriver driver, String base) {
        this.driver = driver;
        this.base = base;
    }

    /**
     * Starts the browser, or skips the calling test class (with the reason logged) when Chromium or its driver is
     * not installed. A browser that is installed but does not start fails the test.
     */
    static Browser start(String base) {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String why = "console browser tests skipped: " + CHROMIUM + " and " + CHROMEDRIVER
                    + " are required (Debian packages chromium and chromium-driver: run scripts/install-test-tools.sh as root)";
            LOG.warn(why);
            Assumptions.abort(why);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1366,900", "--disable-extensions", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--lang=en-US");
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        return new Browser(driver, base);
    }

    /** Loads the console at a hash route afresh and waits until the page named {@code page} is drawn. */
    Browser open(String route, String page) {
        driver.get(base + "/?load=" + (++loads) + "&refresh=" + refreshSeconds + "#" + route);
        return waitReady(page);
    }

    /** Waits until the page named {@code page} is drawn (after an action that redraws it). */
    Browser waitReady(String page) {
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> {
            WebElement v = d.findElement(By.id("view"));
            return page.equals(v.getDomAttribute("data-ready")) && v.getDomAttribute("aria-busy") == null;
        });
        return this;
    }

    /** Waits for the next redraw of the current page (the console bumps #view[data-seq] on every draw). */
    Browser waitRedraw(String page, String seqBefore) {
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> {
            WebElement v = d.findElement(By.id("view"));
            return !seqBefore.equals(v.getDomAttribute("data-seq")) && page.equals(v.getDomAttribute("data-ready"))
                    && v.getDomAttribute("aria-busy") == null;
        });
        return this;
    }

    String seq() {
        return driver.findElement(By.id("view")).getDomAttribute("data-seq");
    }

    /** Waits until an element matches {@code css}. */
    WebElement waitFor(String css) {
        return new WebDriverWait(driver, Duration.ofSeconds(20))
                .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(css)));
    }

    WebElement one(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    String text(String css) {
        return one(css).getText().strip();
    }

    /** The text of the cell with data-k {@code key} in the table row matched by {@code rowCss}. */
    String cell(String rowCss, String key) {
        return text(rowCss + " [data-k='" + key + "']");
    }

    /** The texts of the cells with the given data-k keys in the row matched by {@code rowCss}, in that order. */
    List<String> cells(String rowCss, String... keys) {
        return java.util.Arrays.stream(keys).map(k -> cell(rowCss, k)).collect(Collectors.toList());
    }

    void click(String css) {
        WebElement e = one(css);
        ((JavascriptExecutor) driver).executeScript("arguments[0].scrollIntoView({block:'center'})", e);
        e.click();
    }

    /** Types {@code value} into the field named {@code name} of the open form dialog {@code dialogId}. */
    void fill(String dialogId, String name, String value) {
        WebElement e = new WebDriverWait(driver, Duration.ofSeconds(10)).until(ExpectedConditions
                .visibilityOfElementLocated(By.cssSelector("#" + dialogId + " [name='" + name + "']")));
        e.clear();
        e.sendKeys(value);
    }

    /** Submits ({@code ok}) or cancels the open form dialog {@code dialogId}. */
    void submit(String dialogId, boolean ok) {
        click("#" + dialogId + (ok ? " [data-ok]" : " [data-cancel]"));
    }

    /** Waits until the text of {@code css} contains {@code text} (a dialog filled after a request); returns it. */
    String waitText(String css, String text) {
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> d.findElements(By.cssSelector(css)).stream()
                .anyMatch(e -> e.getText().contains(text)));
        return text(css);
    }

    /** Answers the console's confirmation dialog. */
    void confirm(boolean ok) {
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-ok")));
        click(ok ? "#confirm-ok" : "#confirm-cancel");
    }

    /** Waits for the toast to say something containing {@code text}. */
    void toast(String text) {
        new WebDriverWait(driver, Duration.ofSeconds(20))
                .until(d -> d.findElements(By.id("toast")).stream().anyMatch(t -> t.getText().contains(text)));
    }

    /** SEVERE entries of the browser log since the last call (reading empties it). */
    List<String> consoleErrors() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::toString)
                .collect(Collectors.toList());
    }

    void assertNoConsoleErrors(String page) {
        assertEquals(List.of(), consoleErrors(), "browser console errors on " + page);
    }

    /** Cumulative layout shift of the current document (layout-shift entries without recent input). */
    double layoutShift() {
        Object v = ((JavascriptExecutor) driver).executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "let cls = 0; new PerformanceObserver(l => { for (const e of l.getEntries())"
                + " if (!e.hadRecentInput) cls += e.value; }).observe({type: 'layout-shift', buffered: true});"
                + "setTimeout(() => done(cls), 200);");
        return ((Number) v).doubleValue();
    }

    /** Milliseconds from navigation start until the console drew its page. */
    long drawnAfterMs() {
        return Long.parseLong(one("#view").getDomAttribute("data-drawn-ms"));
    }

    /** No horizontal scrolling of the page itself (wide tables scroll inside their own box). */
    void assertFitsWidth(String page) {
        Object over = ((JavascriptExecutor) driver)
                .executeScript("return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertTrue(((Number) over).longValue() <= 1, page + " overflows the window width by " + over + " px");
    }

    void size(int width, int height) {
        driver.manage().window().setSize(new Dimension(width, height));
    }

    /** Saves a screenshot as target/console-screenshots/{@code name}.png. */
    void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path shot = driver.getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void sessionToken(String token) {
        ((JavascriptExecutor) driver).executeScript(token == null ? "sessionStorage.removeItem('queen.token')"
                : "sessionStorage.setItem('queen.token', arguments[0])", token);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
