package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.queen.connector.QueenOutgoingMetadata;
import io.queen.connector.app.Consumer;
import io.queen.connector.app.Producer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;
import io.queen.connector.incoming.QueenSource;
import io.vertx.core.json.JsonObject;

/** Produce through an outgoing channel, consume through an incoming one, both against a real broker. */
class EndToEndIT extends BrokerTest {

    @Test
    void producedMessagesAreConsumedInPartitionOrderAndAcked() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.globalRegistry.add(registry);
        app = WeldApp.start(merge(
                channel("mp.messaging.outgoing.out", "queue", "e2e"),
                channel("mp.messaging.incoming.in", "queue", "e2e", "batch-size", "7", "wait-timeout", "2000",
                        // a dead broker first: the client must fail over to the live one
                        "url", "http://127.0.0.1:" + Broker.freePort() + "," + broker.url())),
                Producer.class, Consumer.class);
        Producer producer = app.bean(Producer.class);
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            sent.add(producer.send(new JsonObject().put("id", i),
                    QueenOutgoingMetadata.builder().partition("p" + (i % 3)).build()).toCompletableFuture());
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 90);
        assertEquals(90, Recorder.ENTRIES.size(), "each message processed once");
        for (String p : List.of("p0", "p1", "p2")) {
            List<Integer> ids = Recorder.ENTRIES.stream().filter(e -> e.partition().equals(p))
                    .map(e -> Integer.parseInt(e.id())).toList();
            assertEquals(30, ids.size());
            for (int i = 1; i < ids.size(); i++) {
                assertTrue(ids.get(i) > ids.get(i - 1), "partition " + p + " out of order: " + ids);
            }
        }
        assertTrue(app.health().getReadiness().isOk(), "readiness");
        assertTrue(app.health().getLiveness().isOk(), "liveness");

        QueenSource source = app.connector().sources().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> source.metrics().buffered.get() == 0);
        assertEquals(90, source.metrics().acks.get(), "every message acked once");
        // The same counters through Micrometer, tagged by channel.
        assertEquals(90.0, registry.get("queen.messaging.received").tag("channel", "in").functionCounter().count());
        assertEquals(90.0, registry.get("queen.messaging.pushed").tag("channel", "out").functionCounter().count());
        Metrics.globalRegistry.remove(registry);
        app.close();
        app = null;
        // Everything was acked in queue mode: nothing is left to pop.
        assertNull(broker.call("GET", "/api/v1/pop/queue/e2e?batch=10", null));
    }

    @Test
    void unreachableBrokerMakesTheChannelNotReadyButAlive() {
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "nowhere", "url",
                "http://127.0.0.1:" + Broker.freePort(), "retry-backoff", "200"), Consumer.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> !app.health().getReadiness().isOk());
        assertTrue(app.health().getLiveness().isOk(), "the channel keeps reconnecting: alive");
    }

    @Test
    void metadataIsExposedAndIdlePollsKeepTheChannelAlive() throws Exception {
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "meta", "partition", "only",
                "consumer-group", "g1", "subscription-mode", "all", "wait-timeout", "200"), MetadataCapture.class);
        QueenSource source = app.connector().sources().get(0);
        // Several long polls end empty first: the poll loop must go on.
        await().atMost(Duration.ofSeconds(20)).until(() -> source.metrics().emptyPops.get() >= 3);
        assertTrue(app.health().getLiveness().isOk(), "alive after empty polls");
        broker.push("meta", "only", List.of(Map.of("id", 1)), List.of("txn-meta-1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> MetadataCapture.LAST != null);
        var m = MetadataCapture.LAST;
        assertEquals("meta", m.queue());
        assertEquals("only", m.partition());
        assertEquals("txn-meta-1", m.transactionId());
        assertEquals("g1", m.consumerGroup());
        assertNotNull(m.partitionId());
        assertNotNull(m.createdAt());
        assertFalse(m.leaseId().isEmpty());
    }

    @Test
    void multiPartitionPopSharesOneLeaseAndAcksEveryPartition() {
        for (int p = 0; p < 3; p++) {
            List<Map<String, Object>> payloads = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                payloads.add(Map.of("id", p * 100 + i));
            }
            broker.push("multi", "m" + p, payloads, null);
        }
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "multi", "partitions", "3",
                "batch-size", "30", "wait-timeout", "500"), Consumer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 30);
        QueenSource source = app.connector().sources().get(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> source.metrics().acks.get() == 30);
        assertEquals(30, Recorder.ENTRIES.size());
        assertEquals(1, Recorder.ENTRIES.stream().map(Recorder.Entry::extra).distinct().count(),
                "one pop claimed the three partitions under one lease");
        assertEquals(3, Recorder.ENTRIES.stream().map(Recorder.Entry::partition).distinct().count());
        assertEquals(30, Recorder.ENTRIES.stream().map(Recorder.Entry::id).distinct().count());
        assertNull(broker.call("GET", "/api/v1/pop/queue/multi?batch=10", null), "every partition acked");
    }

    /** Keeps the metadata of the last message. */
    @jakarta.enterprise.context.ApplicationScoped
    public static class MetadataCapture {
        static volatile io.queen.connector.QueenIncomingMetadata LAST;

        @org.eclipse.microprofile.reactive.messaging.Incoming("in")
        public void consume(JsonObject payload, io.queen.connector.QueenIncomingMetadata meta) {
            LAST = meta;
        }
    }
}
