package io.queen.connector.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.queen.connector.QueenOutgoingMetadata;
import io.queen.connector.app.Producer;
import io.queen.connector.app.WeldApp;
import io.vertx.core.json.JsonObject;

/** The outgoing side against a real broker: batching, ack after confirmation, nack on refusal, payload rules. */
class OutgoingIT extends BrokerTest {

    @Test
    void messagesArePushedInBatchesInOrderAndAckedAfterConfirmation() throws Exception {
        app = WeldApp.start(channel("mp.messaging.outgoing.out", "queue", "orders", "partition", "p1",
                "push-batch-size", "25"), Producer.class);
        Producer producer = app.bean(Producer.class);
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            acks.add(producer.send(new JsonObject().put("id", i)).toCompletableFuture());
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        List<JsonNode> stored = broker.drain("orders", "check");
        assertEquals(200, stored.size());
        for (int i = 0; i < 200; i++) {
            assertEquals(i, stored.get(i).path("data").path("id").asInt(), "order at " + i);
            assertEquals("p1", stored.get(i).path("partition").asText());
        }
        long requests = app.connector().sink("out").metrics().pushes.get();
        assertTrue(requests >= 8 && requests < 200, "200 messages in batches of <= 25, got " + requests + " requests");
    }

    @Test
    void metadataOverridesDedupAndPayloadRules() throws Exception {
        app = WeldApp.start(channel("mp.messaging.outgoing.out", "queue", "events"), Producer.class);
        Producer producer = app.bean(Producer.class);
        String trace = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
        producer.send("{\"kind\":\"json-string\"}", QueenOutgoingMetadata.builder().partition("a")
                .transactionId("t-1").traceId(trace).build()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        // Same transaction id in the same partition: acked (duplicate) but stored once.
        producer.send(Map.of("kind", "dup"), QueenOutgoingMetadata.builder().partition("a").transactionId("t-1")
                .build()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        producer.send("plain text", QueenOutgoingMetadata.builder().partition("a").build()).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        producer.send(Map.of("kind", "other-queue"), QueenOutgoingMetadata.builder().queue("events-b").build())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);

        List<JsonNode> a = broker.drain("events", "check");
        assertEquals(2, a.size(), a.toString());
        assertEquals("json-string", a.get(0).path("data").path("kind").asText());
        assertEquals("t-1", a.get(0).path("transactionId").asText());
        assertEquals(trace, a.get(0).path("traceId").asText());
        assertEquals("plain text", a.get(1).path("data").asText());
        assertTrue(a.get(1).path("data").isTextual());
        assertEquals(1, broker.drain("events-b", "check").size());
    }

    @Test
    void refusedPushIsNacked() throws Exception {
        app = WeldApp.start(channel("mp.messaging.outgoing.out", "queue", "refused"), Producer.class);
        Producer producer = app.bean(Producer.class);
        // The broker rejects a non-UUID trace id (400): the message must be nacked, not acked.
        ExecutionException e = assertThrows(ExecutionException.class, () -> producer.send(Map.of("x", 1),
                QueenOutgoingMetadata.builder().traceId("not-a-uuid").build()).toCompletableFuture()
                .get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("400"), e.getCause().getMessage());
        // Bytes that are not JSON cannot be sent either.
        assertThrows(ExecutionException.class, () -> producer.send("not json".getBytes())
                .toCompletableFuture().get(10, TimeUnit.SECONDS));
        producer.send(Map.of("x", 2)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(1, broker.drain("refused", "check").size());
    }
}
