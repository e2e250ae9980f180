package io.queen.console;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.auth.JwtProfile;
import io.queen.auth.Tokens;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The console with authentication on: its files load without a token, the API asks for one (the console opens its
 * token dialog), and what a token's role may do decides which buttons are drawn: a read-only token sees every page
 * with no write button, read-write gets replay, delete, seek and configure but not the maintenance switches, admin
 * gets those too. The broker enforces the roles either way (io.queen.auth tests); this checks what is drawn.
 */
@QuarkusTest
@TestProfile(JwtProfile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsoleAuthTest extends ConsoleBrowserTest {
    final String admin = Tokens.token("ops", "admin", null);
    final String readWrite = Tokens.token("app", "read-write", null);
    final String readOnly = Tokens.token("viewer", "read-only", null);

    @Override
    void prepare() {
        ok(Tokens.post(admin, "/api/v1/configure", "{\"queue\":\"ro-orders\",\"options\":{}}"), 200);
        ok(Tokens.post(admin, "/api/v1/push", "{\"items\":[{\"queue\":\"ro-orders\",\"partition\":\"a\","
                + "\"payload\":{\"n\":0}},{\"queue\":\"ro-orders\",\"partition\":\"a\",\"payload\":{\"n\":1}},"
                + "{\"queue\":\"ro-orders\",\"partition\":\"a\",\"payload\":{\"n\":2}}]}"), 201);
        Http.Reply popped = Tokens.get(admin, "/api/v1/pop/queue/ro-orders/partition/a?batch=1");
        ok(popped, 200);
        JsonNode m = json(popped.body()).get("messages").get(0);
        ok(Tokens.post(admin, "/api/v1/ack", "{\"transactionId\":\"" + m.get("transactionId").asText()
                + "\",\"partitionId\":\"" + m.get("partitionId").asText() + "\",\"leaseId\":\""
                + m.get("leaseId").asText() + "\",\"status\":\"dlq\",\"error\":\"bad\"}"), 200);
    }

    private static void ok(Http.Reply r, int status) {
        assertEquals(status, r.status(), r.body());
    }

    private void useToken(String token) {
        browser.open("/retention", "retention");
        browser.sessionToken(token);
        browser.consoleErrors();
    }

    @Test
    void withoutATokenTheConsoleLoadsAndAsksForOne() {
        assertEquals(200, Http.get("/").status(), "the console's files need no token");
        assertEquals(200, Http.get("/console/app.js").status());
        assertEquals(200, Http.get("/console/pages/overview.js").status());
        assertEquals(401, Http.get("/api/v1/resources/overview").status(), "the API does");

        useToken(null);
        browser.open("/", "overview");
        browser.waitFor("#token-dialog[open]");
        browser.screenshot("auth-token-dialog");
        List<String> errors = browser.consoleErrors();
        assertTrue(errors.stream().allMatch(e -> e.contains("401")), "only the API's 401 answers: " + errors);

        String seq = browser.seq();
        browser.one("#token-input").sendKeys(readOnly);
        browser.click("#token-save");
        browser.waitRedraw("overview", seq);
        assertEquals("read-only", browser.text("#role"));
        assertEquals("3", browser.text("#view [data-k='total']"));
        browser.assertNoConsoleErrors("overview with a token");
    }

    @Test
    void readOnlyTokenSeesEveryPageWithoutWriteButtons() {
        useToken(readOnly);
        for (String[] p : List.of(new String[] {"/", "overview"}, new String[] {"/queues", "queues"},
                new String[] {"/queues/ro-orders", "queue"}, new String[] {"/queues/ro-orders/partitions/a", "partition"},
                new String[] {"/queues/ro-orders/messages", "messages"},
                new String[] {"/groups", "groups"}, new String[] {"/groups/__QUEUE_MODE__", "group"},
                new String[] {"/dlq", "dlq"}, new String[] {"/retention", "retention"})) {
            browser.open(p[0], p[1]);
            assertEquals("read-only", browser.text("#role"));
            assertEquals(List.of(), browser.all("[data-write]"), p[0] + " draws no write button");
            browser.screenshot("readonly-" + p[1]);
            browser.assertNoConsoleErrors(p[0]);
        }
        browser.open("/queues/ro-orders", "queue");
        assertFalse(browser.one("input[name='leaseTime']").isEnabled(), "the configuration is shown read-only");
        assertEquals("1", browser.cell("tr[data-partition='a']", "deadLetter"));
        browser.open("/queues/ro-orders/partitions/a", "partition");
        browser.click("#view tbody tr [data-k='transactionId'] button");
        browser.waitFor("#record-detail [data-k='payload']");
        assertEquals(List.of(), browser.all("[data-write]"), "no publish-a-copy in the message drawer");
        browser.open("/dlq", "dlq");
        browser.click("#view tbody tr [data-k='errorMessage'] button");
        assertEquals("bad", browser.waitFor("#dlq-detail [data-k='error']").getText());
        assertEquals(List.of(), browser.all("[data-write]"), "no replay or delete");
        browser.screenshot("readonly-dead-letter");
        browser.assertNoConsoleErrors("dead letter detail");
    }

    @Test
    void readWriteTokenGetsWriteButtonsAndAdminTheSwitches() {
        useToken(readWrite);
        browser.open("/queues/ro-orders/partitions/a", "partition");
        browser.click("#view tbody tr [data-k='transactionId'] button");
        browser.waitFor("#record-detail [data-k='payload']");
        assertEquals(1, browser.all("#record-detail [data-write='publish-copy']").size(), "read-write may publish a copy");
        browser.open("/queues/ro-orders", "queue");
        assertEquals(1, browser.all("[data-write='publish']").size());
        assertEquals(List.of(), browser.all("[data-write='purge'], [data-write='delete-queue']"), "purge and delete are admin's");
        browser.open("/dlq", "dlq");
        browser.click("#view tbody tr [data-k='errorMessage'] button");
        browser.waitFor("#dlq-detail [data-write='replay']");
        assertEquals(1, browser.all("#dlq-detail [data-write='delete']").size());
        browser.open("/groups/__QUEUE_MODE__", "group");
        assertEquals(1, browser.all("[data-write='seek-end']").size());
        browser.open("/", "overview");
        assertEquals(List.of(), browser.all("[data-write='maintenance']"), "the switches are admin's");
        browser.assertNoConsoleErrors("read-write pages");

        useToken(admin);
        browser.open("/", "overview");
        assertEquals("admin", browser.text("#role"));
        assertEquals(2, browser.all("[data-write='maintenance']").size());
        assertEquals("off", browser.text("[data-k='pushMaintenance']"));
        browser.assertNoConsoleErrors("admin overview");
    }
}
