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
 * The broker is killed under an idle application (an outgoing channel and an incoming channel parked in a 30 s
 * long poll) and started again: both channels report it unreachable, the outage and the recovery are logged
 * once per channel, the reconnect back-off grows to its cap, and readiness recovers within a second of the broker
 * answering again.
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
    void outageIsReportedOnEveryChannelAndReadinessRecoversWithinASecond() {
        app = WeldApp.start(merge(
                channel("mp.messaging.incoming.in", "queue", "outage", "wait-timeout", "30000"),
                channel("mp.messaging.outgoing.out", "queue", "outage")), Consumer.class, Producer.class);
        Producer producer = app.bean(Producer.class);
        producer.send(new JsonObject().put("id", 1)).toCompletableFuture().join();
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.health().getReadiness().isOk());
        logs.clear();

        broker.kill();
        await().atMost(Duration.ofSeconds(15)).until(() -> !ready("out") && !ready("in"));
        // Let the back-off reach its cap: 100, 200, 400, 800, then 1000 ms (less jitter).
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
        String message = channelInfo("out").getMessage();
        assertTrue(message != null && message.contains("unreachable"), "the report says why: " + message);

        long healthyAt = broker.restart();
        await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(30))
                .until(() -> app.health().getReadiness().isOk());
        long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healthyAt);
        System.out.println("readiness recovered " + recoveryMs + " ms after the broker answered /health");
        assertTrue(recoveryMs < 3_000, "readiness recovered " + recoveryMs + " ms after the broker came back");

        // The parked poll loop resumed at once: a new message arrives without waiting for a long poll to end.
        producer.send(new JsonObject().put("id", 2)).toCompletableFuture().join();
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ENTRIES.size() == 2);

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
