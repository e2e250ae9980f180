package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.queen.connector.app.Consumer;
import io.queen.connector.app.Producer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;
import io.smallrye.reactive.messaging.health.HealthReport;
import io.vertx.core.json.JsonObject;

/**
 * The broker is killed under an idle application and started again on the same port and database: an outgoing
 * channel that sends nothing reports it unreachable, an incoming channel parked in a 30 s long poll is ready again
 * within a second of the broker answering, and the outage and the recovery are logged once per channel while the
 * reconnect back-off grows to its cap.
 */
class BrokerOutageIT extends BrokerTest {

    private final List<LogRecord> logs = new CopyOnWriteArrayList<>();
    private final Logger connectorLogger = Logger.getLogger("io.queen.connector");
    private final Logger linkLogger = Logger.getLogger("io.queen.connector.client.BrokerLink");
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logs.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void brokerRunning() {
        // a test that failed between kill and restart must not take the next one down with it
        if (!broker.isAlive()) {
            broker.restart();
        }
    }

    @BeforeEach
    void captureLogs() {
        capture.setLevel(Level.ALL);
        connectorLogger.addHandler(capture);
        linkLogger.setLevel(Level.FINE);   // the reconnect attempts are DEBUG
    }

    @AfterEach
    void releaseLogs() {
        connectorLogger.removeHandler(capture);
        linkLogger.setLevel(null);
    }

    @Test
    void anIdleOutgoingChannelReportsTheBrokerUnreachable() {
        app = WeldApp.start(channel("mp.messaging.outgoing.out", "queue", "outage-out"), Producer.class);
        app.bean(Producer.class).send(new JsonObject().put("id", 1)).toCompletableFuture().join();
        await().atMost(Duration.ofSeconds(10)).until(() -> ready("out"));

        broker.kill();
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> !ready("out"));
            String message = channelInfo("out").getMessage();
            assertTrue(message != null && message.contains("unreachable"), "the report says why: " + message);
        } finally {
            broker.restart();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ready("out"));
    }

    @Test
    void readinessRecoversWithinASecondOfTheBrokerReturningThoughTheQueueIsIdle() {
        // a 30 s long poll on an empty queue: nothing else would tell the channel that the broker is back
        app = WeldApp.start(channel("mp.messaging.incoming.in", "queue", "outage-in", "wait-timeout", "30000"),
                Consumer.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> ready("in"));

        broker.kill();
        await().atMost(Duration.ofSeconds(15)).until(() -> !ready("in"));
        long healthyAt = broker.restart();
        await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(40)).until(() -> ready("in"));
        long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healthyAt);
        System.out.println("readiness recovered " + recoveryMs + " ms after the broker answered /health");
        assertTrue(recoveryMs < 3_000, "readiness recovered " + recoveryMs + " ms after the broker came back");

        // the poll loop resumed too: a message pushed now arrives without waiting for a long poll to end
        broker.push("outage-in", "p0", List.of(java.util.Map.of("id", 2)), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ENTRIES.size() == 1);
    }

    @Test
    void anOutageIsLoggedOncePerChannelAndReconnectsBackOffToTheCap() {
        app = WeldApp.start(merge(
                channel("mp.messaging.incoming.in", "queue", "outage-log", "wait-timeout", "30000"),
                channel("mp.messaging.outgoing.out", "queue", "outage-log")), Consumer.class, Producer.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.health().getReadiness().isOk());
        logs.clear();

        broker.kill();
        await().atMost(Duration.ofSeconds(15)).until(() -> !ready("in"));
        // Let the back-off reach its cap: 100, 200, 400, 800, then 1000 ms (less jitter).
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
        broker.restart();
        // (generous: the recovery time is the other test's business)
        await().atMost(Duration.ofSeconds(40)).until(() -> app.health().getReadiness().isOk());

        for (String channel : List.of("in", "out")) {
            List<String> warnings = messages(Level.WARNING, channel);
            assertEquals(1, warnings.size(), "one WARN for the outage of channel " + channel + ": " + warnings);
            assertTrue(warnings.get(0).contains("unreachable"), warnings.get(0));
            List<String> back = messages(Level.INFO, channel).stream().filter(m -> m.contains("reachable again")).toList();
            assertEquals(1, back.size(), "one INFO for the recovery of channel " + channel + ": " + back);
        }
        List<Long> pauses = messages(Level.FINE, "in").stream().filter(m -> m.contains("reconnect attempt"))
                .map(m -> Long.parseLong(m.replaceAll(".* in (\\d+) ms$", "$1"))).toList();
        System.out.println("reconnect pauses of channel in (ms): " + pauses);
        assertTrue(pauses.size() >= 5, "several reconnect attempts: " + pauses);
        assertTrue(pauses.get(0) <= 100 && pauses.stream().allMatch(p -> p <= 1000), "bounded by the cap: " + pauses);
        assertTrue(pauses.get(pauses.size() - 1) >= 800, "grew to the cap: " + pauses);
    }

    private boolean ready(String channel) {
        HealthReport.ChannelInfo info = channelInfo(channel);
        return info != null && info.isOk();
    }

    private HealthReport.ChannelInfo channelInfo(String channel) {
        return app.health().getReadiness().getChannels().stream().filter(c -> c.getChannel().equals(channel))
                .findFirst().orElse(null);
    }

    private List<String> messages(Level level, String channel) {
        SimpleFormatter f = new SimpleFormatter();
        return logs.stream().filter(r -> r.getLevel().equals(level)).map(f::formatMessage)
                .filter(m -> m.contains("channel " + channel + ":")).toList();
    }
}
