package io.queen.pop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Long polls are capped per client address and in total, counted per request, so the streams of one HTTP/2
 * connection count one each: beyond a cap a long poll is answered 204 at once; health and push still answer; and
 * places are given back when polls end. Caps scaled down (20 per address, 30 in all).
 */
@QuarkusTest
@TestProfile(ParkingBudgetTest.SmallCaps.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ParkingBudgetTest {
    static final int PER_ADDRESS = 20;
    static final int TOTAL = 30;

    @Inject
    DrivenClock clock;

    public static class SmallCaps extends DrivenClock.Profile {
        public SmallCaps() {
            super("queen.pop.max-parked-per-address", String.valueOf(PER_ADDRESS),
                    "queen.pop.max-parked", String.valueOf(TOTAL));
        }
    }

    /** An h2c client (HTTP/2 over cleartext, by upgrade) from one local address. */
    static HttpClient h2c(String localAddress) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .localAddress(InetAddress.getByName(localAddress)).connectTimeout(Duration.ofSeconds(5)).build();
    }

    static HttpRequest get(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + path))
                .timeout(Duration.ofSeconds(60)).GET().build();
    }

    static HttpRequest push(String queue) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + "/api/v1/push"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"items\":[{\"queue\":\"" + queue
                        + "\",\"payload\":{\"n\":1}}]}")).build();
    }

    /**
     * Fires {@code n} long polls; returns them once {@code refused} of them have answered (the refused ones) and
     * {@code parked} pops in all wait.
     */
    List<CompletableFuture<HttpResponse<String>>> park(HttpClient client, String queue, int n, int refused,
            int parked) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        CountDownLatch answered = new CountDownLatch(refused);
        for (int i = 0; i < n; i++) {
            CompletableFuture<HttpResponse<String>> poll = client.sendAsync(
                    get("/api/v1/pop/queue/" + queue + "/partition/Default?wait=true&timeout=30000"),
                    HttpResponse.BodyHandlers.ofString());
            // the list holds the poll itself, which is done before its dependents run; a dependent future (what
            // whenComplete returns) completes only after the count-down, so a count of those could come up short
            poll.whenComplete((r, e) -> answered.countDown());
            polls.add(poll);
        }
        assertTrue(answered.await(30, TimeUnit.SECONDS), "refused polls answered");
        clock.awaitParked(parked);
        return polls;
    }

    static long refused(List<CompletableFuture<HttpResponse<String>>> polls) {
        return polls.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join)
                .peek(r -> assertEquals(204, r.statusCode())).count();
    }

    @Test
    void longPollsAreCappedPerAddressAcrossHttp2StreamsAndInTotal() throws Exception {
        HttpClient one = h2c("127.0.0.1");
        // the first request upgrades the connection to HTTP/2; the polls below are streams on it
        HttpResponse<String> health = one.send(get("/health"), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, health.version(), "h2c upgrade");

        List<CompletableFuture<HttpResponse<String>>> first = park(one, "capped", PER_ADDRESS + 10, 10, PER_ADDRESS);
        assertEquals(10, refused(first), "beyond the per-address cap, answered 204 at once");
        assertEquals(HttpClient.Version.HTTP_2, first.stream().filter(CompletableFuture::isDone).findFirst()
                .orElseThrow().join().version());
        // with the address's cap full, its health and push still answer
        assertEquals(200, one.send(get("/health"), HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(201, one.send(push("other"), HttpResponse.BodyHandlers.ofString()).statusCode());

        // a second address fills the total cap: 10 more places, then 204 at once
        HttpClient two = h2c("127.0.0.2");
        List<CompletableFuture<HttpResponse<String>>> second = park(two, "capped", 15, 5, TOTAL);
        assertEquals(5, refused(second), "beyond the total cap, answered 204 at once");
        // a third address, with nothing of its own parked, is refused too; its health and push answer
        HttpClient three = h2c("127.0.0.3");
        HttpResponse<String> late = three.send(get("/api/v1/pop/queue/capped/partition/Default?wait=true&timeout=30000"),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(204, late.statusCode());
        assertEquals("1", late.headers().firstValue("Retry-After").orElse(null));
        // over HTTP/1.1 a refused poll also gives its connection back (the server closes it after the answer)
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress("127.0.0.3", 0));
            s.connect(new InetSocketAddress("127.0.0.1", RestAssured.port), 5000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /api/v1/pop/queue/capped/partition/Default?wait=true&timeout=30000"
                    + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 204"), answer);
        }
        assertEquals(200, three.send(get("/health"), HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(201, three.send(push("other"), HttpResponse.BodyHandlers.ofString()).statusCode());
        // a fetch that may wait takes a place as a long poll does: with the caps full it answers what there is
        // (nothing past the two messages of "other") instead of waiting its 30 s
        HttpResponse<String> fetch = three.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + RestAssured.port + "/api/v1/fetch"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString("{\"maxWaitMs\":30000,\"entries\":[{\"queue\":\"other\","
                        + "\"partition\":\"Default\",\"offset\":2}]}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, fetch.statusCode(), fetch.body());
        assertTrue(fetch.body().contains("\"records\":[]"), fetch.body());
        // a short pop (no wait) is not a long poll and is never refused
        assertEquals(204, three.send(get("/api/v1/pop/queue/capped/partition/Default"),
                HttpResponse.BodyHandlers.ofString()).statusCode());

        // the parked ones are still parked, and a push reaches one of them
        assertFalse(first.stream().filter(f -> !f.isDone()).count() < PER_ADDRESS, "the admitted polls wait");
        // the parked ones are listed before the push: the poll it wakes may answer before the push does
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>(first);
        waiting.addAll(second);
        waiting.removeIf(CompletableFuture::isDone);
        assertEquals(201, one.send(push("capped"), HttpResponse.BodyHandlers.ofString()).statusCode());
        HttpResponse<String> served = (HttpResponse<String>) CompletableFuture.anyOf(waiting.toArray(
                new CompletableFuture[0])).get(30, TimeUnit.SECONDS);
        assertEquals(200, served.statusCode(), "a parked poll got the pushed message");
        // its place was given back: the third address can park one poll now (it gets the next push)
        CompletableFuture<HttpResponse<String>> again = three.sendAsync(
                get("/api/v1/pop/queue/capped/partition/Default?wait=true&timeout=30000"),
                HttpResponse.BodyHandlers.ofString());
        clock.awaitParked(TOTAL);
        assertFalse(again.isDone(), "a freed place is taken again");
    }
}
