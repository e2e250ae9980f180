package io.queen.examples.billing;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The billing example against a real broker, started by Dev Services for Queen (the test configures no broker):
 * orders sent through the producer are logged once by the at-least-once consumer and invoiced exactly once by the
 * transform on the same queue; health and metrics show the channels.
 */
@QuarkusTest
class BillingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    OrderDesk desk;

    @Inject
    OrderLog log;

    @Test
    void ordersAreLoggedAndInvoicedOnce() throws Exception {
        List<CompletableFuture<Void>> stored = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            stored.add(desk.place(new Order("o-" + i, "c-" + (i % 4), 1000 + i)).toCompletableFuture());
        }
        CompletableFuture.allOf(stored.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        given().contentType("application/json").body("{\"id\":\"o-rest\",\"customerId\":\"c-1\",\"amountCents\":500}")
                .post("/orders").then().statusCode(204);

        await().atMost(Duration.ofSeconds(30)).until(() -> log.seen().size() == 31);

        List<JsonNode> invoices = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            invoices.addAll(popAll("invoices"));
            return invoices.size() >= 31;
        });
        Set<String> orders = new HashSet<>();
        for (JsonNode invoice : invoices) {
            orders.add(invoice.path("data").path("orderId").asText());
            long amount = invoice.path("data").path("amountCents").asLong();
            assertEquals(amount / 5, invoice.path("data").path("vatCents").asLong());
        }
        assertEquals(31, invoices.size(), "one invoice per order");
        assertEquals(31, orders.size(), "no order invoiced twice");

        given().get("/q/health/ready").then().statusCode(200)
                .body(containsString("invoicing"), containsString("new-orders"));
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertEquals(31.0, sample(metrics, "queen_messaging_acks_total", "invoicing"), metrics);
        assertEquals(31.0, sample(metrics, "queen_messaging_pushed_total", "invoices"), metrics);
        assertEquals(31.0, sample(metrics, "queen_messaging_pushed_total", "new-orders"), metrics);
        assertEquals(31.0, sample(metrics, "quarkus_messaging_message_acks_total", "invoicing"), metrics);
    }

    /** Pops (auto-acked, group {@code test}) what is in {@code queue} now, from the broker Dev Services started. */
    private static List<JsonNode> popAll(String queue) throws Exception {
        String broker = ConfigProvider.getConfig().getValue("mp.messaging.connector.smallrye-queen.url", String.class);
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(broker
                + "/api/v1/pop/queue/" + queue + "?batch=100&autoAck=true&consumerGroup=test&subscriptionMode=all"))
                .build(), HttpResponse.BodyHandlers.ofString());
        List<JsonNode> out = new ArrayList<>();
        if (r.statusCode() == 200) {
            JSON.readTree(r.body()).path("messages").forEach(out::add);
        }
        return out;
    }

    private static double sample(String text, String family, String channel) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(family) + "\\{[^}]*channel=\"" + Pattern.quote(channel)
                + "\"[^}]*\\} (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
