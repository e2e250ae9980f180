package io.queen.connector.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.queen.connector.app.Consumer;
import io.queen.connector.app.Producer;
import io.queen.connector.app.Recorder;
import io.queen.connector.app.Transformer;
import io.queen.connector.app.WeldApp;
import io.vertx.core.json.JsonObject;

/**
 * The connector's metrics as a scrape of {@code /q/metrics} shows them (a Prometheus registry, the one Quarkus
 * uses): transactional acks and {@code toChannel} outputs are counted on their channels, every family has help
 * text.
 */
class MetricsIT extends BrokerTest {

    private PrometheusMeterRegistry prometheus;

    @BeforeEach
    void registry() {
        prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Metrics.globalRegistry.add(prometheus);
    }

    @AfterEach
    void removeRegistry() {
        Metrics.globalRegistry.remove(prometheus);
    }

    @Test
    void transactionalAcksAreCountedOnTheInputChannel() {
        String text = transform("mx-acks");
        assertEquals(6.0, value(text, "queen_messaging_acks_total", "in"), "each committed transaction acked its input:\n" + text);
    }

    @Test
    void toChannelOutputsAreCountedOnTheOutputChannel() {
        String text = transform("mx-out");
        assertEquals(12.0, value(text, "queen_messaging_pushed_total", "out"), "two outputs per input through toChannel:\n" + text);
        assertEquals(6.0, value(text, "queen_messaging_pushes_total", "out"), "one transaction per input wrote to out");
        assertEquals(12.0, value(text, "queen_messaging_pushed_transactional_total", "out"),
                "the toChannel outputs, apart");
        assertEquals(12, broker.drain("mx-out-invoices", "check").size(), "the broker holds what the counters say");
    }

    /** Runs the transformer over 6 inputs of queue {@code queue}; returns the scrape after it finished. */
    private String transform(String queue) {
        List<Map<String, Object>> inputs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            inputs.add(Map.of("id", i));
        }
        broker.push(queue, "p0", inputs, null);
        app = WeldApp.start(merge(
                channel("mp.messaging.incoming.in", "queue", queue, "consumer-group", "billing", "wait-timeout", "500"),
                channel("mp.messaging.outgoing.out", "queue", queue + "-invoices")), Transformer.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 6);
        return prometheus.scrape();
    }

    @Test
    void everyMetricFamilyHasHelpText() {
        app = WeldApp.start(merge(
                channel("mp.messaging.incoming.in", "queue", "mx-help", "wait-timeout", "500"),
                channel("mp.messaging.outgoing.out", "queue", "mx-help")), Consumer.class, Producer.class);
        app.bean(Producer.class).send(new JsonObject().put("id", 1)).toCompletableFuture().join();
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 1);

        String text = prometheus.scrape();
        Set<String> families = new LinkedHashSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (queen_\\S+) ").matcher(text);
        while (type.find()) {
            families.add(type.group(1));
        }
        assertEquals(13, families.size(), "pops, empty pops, received, acks, nacks, lease extensions, buffered, "
                + "buffered max, consumer lag, pushes, pushed, pushed transactional, push failures:\n" + text);
        for (String family : families) {
            Matcher help = Pattern.compile("(?m)^# HELP " + Pattern.quote(family) + " (.*)$").matcher(text);
            assertTrue(help.find(), "no # HELP for " + family);
            assertFalse(help.group(1).isBlank(), "empty # HELP for " + family);
        }
    }

    @Test
    void consumerLagIsWhatTheGroupHasNotConsumedYet() {
        List<Map<String, Object>> inputs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            inputs.add(Map.of("id", i));
        }
        broker.push("mx-lag", "p0", inputs, null);
        broker.push("mx-lag", "p1", inputs.subList(0, 2), null);
        app = WeldApp.start(merge(channel("mp.messaging.incoming.in", "queue", "mx-lag", "consumer-group", "billing",
                "partition", "p0", "batch-size", "1", "wait-timeout", "500", "lag-interval", "100"),
                Map.of("app.delay.ms", "300")), Consumer.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> value(prometheus.scrape(), "queen_messaging_consumer_lag", "in") >= 5);
        assertTrue(value(prometheus.scrape(), "queen_messaging_consumer_lag", "in") <= 6,
                "only the channel's partition p0 counts (p1 holds 2 more)");
        await().atMost(Duration.ofSeconds(30)).until(() -> Recorder.ENTRIES.size() >= 6);
        await().atMost(Duration.ofSeconds(10)).until(() -> value(prometheus.scrape(), "queen_messaging_consumer_lag", "in") == 0);
    }

    /** The sample of {@code family} tagged {@code channel}; fails when absent. */
    static double value(String text, String family, String channel) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(family) + "\\{[^}]*channel=\"" + Pattern.quote(channel)
                + "\"[^}]*\\} (\\S+)$").matcher(text);
        assertTrue(m.find(), family + "{channel=" + channel + "} missing:\n" + text);
        return Double.parseDouble(m.group(1));
    }
}
