package io.queen.examples.kafka;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The application, with Quarkus' Kafka connector unchanged, against a real Queen broker's Kafka listener
 * ({@link QueenBroker}): orders in over REST, invoices out through two topics and two consumer groups, and the same
 * records and groups seen through Queen's HTTP API.
 */
@QuarkusTest
@QuarkusTestResource(value = QueenBroker.class, restrictToAnnotatedClass = true)
class KafkaQuarkusTest {
    private static final int CUSTOMERS = 5;
    private static final int ORDERS = 60;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @ConfigProperty(name = "queen.test.url")
    String queen;

    @Test
    void everyOrderIsInvoicedExactlyOnceInOrderPerCustomerAndQueenSeesTheRecordsAndGroups() throws Exception {
        Map<String, Integer> perCustomer = new HashMap<>();
        long cents = 0;
        for (int i = 0; i < ORDERS; i++) {
            String customer = "c-" + (i % CUSTOMERS);
            int seq = perCustomer.merge(customer, 1, Integer::sum) - 1;
            long amount = 100 + i;
            cents += amount;
            given().contentType(ContentType.JSON)
                    .body(Map.of("id", "o-" + i, "customerId", customer, "seq", seq, "amountCents", amount))
                    .post("/orders").then().statusCode(204);
        }
        // bad input is refused before anything is sent
        given().contentType(ContentType.JSON).body(Map.of("id", "o-x", "amountCents", 1)).post("/orders").then()
                .statusCode(400);

        List<Map<String, Object>> invoices = await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> given().get("/invoices").then().statusCode(200).extract().jsonPath()
                        .<Map<String, Object>>getList("$"), l -> l.size() >= ORDERS);
        // nothing more arrives: no order invoiced twice
        Thread.sleep(1500);
        invoices = given().get("/invoices").then().extract().jsonPath().getList("$");
        assertEquals(ORDERS, invoices.size(), "one invoice per order");
        Set<String> orderIds = invoices.stream().map(m -> (String) m.get("orderId"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(ORDERS, orderIds.size(), "every order invoiced exactly once: " + orderIds);
        Map<String, List<Integer>> seqs = new LinkedHashMap<>();
        long total = 0;
        for (Map<String, Object> inv : invoices) {
            seqs.computeIfAbsent((String) inv.get("customerId"), k -> new ArrayList<>())
                    .add(((Number) inv.get("seq")).intValue());
            long net = ((Number) inv.get("netCents")).longValue();
            assertEquals(net + Math.round(net * 0.20), ((Number) inv.get("totalCents")).longValue());
            total += net;
        }
        assertEquals(cents, total);
        assertEquals(CUSTOMERS, seqs.size());
        seqs.forEach((customer, s) -> {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < perCustomer.get(customer); i++) {
                expected.add(i);
            }
            assertEquals(expected, s, "invoices of " + customer + " in order");
        });

        // Queen's view: both Kafka consumer groups hold cursors on their topics, with nothing left to consume once
        // the connector has committed (it commits periodically)
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertCaughtUp("invoicing", "orders", ORDERS);
            assertCaughtUp("invoice-ledger", "invoices", ORDERS);
        });

        // every invoice is a Queen message: an HTTP pop in a group of its own reads them as Kafka record envelopes
        Set<String> popped = new TreeSet<>();
        for (int i = 0; i < 20 && popped.size() < ORDERS; i++) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(queen
                    + "/api/v1/pop/queue/invoices?consumerGroup=audit&batch=100&wait=false&autoAck=true")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 204) {
                continue;
            }
            assertEquals(200, r.statusCode(), r.body());
            for (JsonNode m : JSON.readTree(r.body()).get("messages")) {
                JsonNode payload = m.get("data");
                String key = payload.get("kafka").get("key").asText();
                JsonNode value = payload.get("value");
                assertEquals(key, value.get("customerId").asText());
                assertTrue(popped.add(value.get("orderId").asText()), "popped twice: " + value);
            }
        }
        assertEquals(orderIds, popped);
    }

    private void assertCaughtUp(String group, String topic, int records) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(queen + "/api/v1/consumer-groups/" + group)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode partitions = JSON.readTree(r.body()).path(topic).path("partitions");
        assertTrue(partitions.isArray() && !partitions.isEmpty(), group + " has no cursors on " + topic + ": " + r.body());
        long consumed = 0;
        for (JsonNode p : partitions) {
            assertEquals(0, p.get("offsetLag").asLong(), group + " lags on " + topic + ": " + r.body());
            // committedOffset is Queen's last consumed offset: the partition's records are 0..committedOffset
            consumed += p.get("committedOffset").asLong() + 1;
        }
        assertEquals(records, consumed, group + " on " + topic + ": " + r.body());
    }
}
