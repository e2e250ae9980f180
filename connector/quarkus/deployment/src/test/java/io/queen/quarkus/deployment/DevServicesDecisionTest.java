package io.queen.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** Which channels Dev Services for Queen serves, and where it finds the broker jar. */
class DevServicesDecisionTest {

    private static SmallRyeConfig config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 500)).build();
    }

    @Test
    void servesTheQueenChannelsThatNameNoUrl() {
        SmallRyeConfig c = config(Map.of(
                "mp.messaging.incoming.orders.connector", "smallrye-queen",
                "mp.messaging.outgoing.invoices.connector", "smallrye-queen",
                "mp.messaging.incoming.audit.connector", "smallrye-queen",
                "mp.messaging.incoming.audit.url", "http://broker:6632",
                "mp.messaging.incoming.events.connector", "smallrye-kafka"));
        assertEquals(List.of("invoices", "orders"), QueenDevServicesProcessor.channelsWithoutUrl(c));
    }

    @Test
    void nothingToServeWhenEveryQueenChannelHasAUrlOrThereIsNone() {
        assertTrue(QueenDevServicesProcessor.channelsWithoutUrl(config(Map.of(
                "mp.messaging.incoming.orders.connector", "smallrye-queen",
                "mp.messaging.incoming.orders.url", "http://broker:6632"))).isEmpty());
        assertTrue(QueenDevServicesProcessor.channelsWithoutUrl(config(Map.of(
                "mp.messaging.incoming.events.connector", "smallrye-kafka"))).isEmpty());
    }

    @Test
    void findsTheBuiltBrokerOfTheEnclosingRepository() throws IOException {
        // this module lies in <repository>/connector/quarkus/deployment; the tests run after the broker's build
        Path jar = QueenDevServicesProcessor.locateJar().orElseThrow();
        assertTrue(Files.isRegularFile(jar), jar.toString());
        assertTrue(jar.endsWith(Path.of("target", "quarkus-app", "quarkus-run.jar")), jar.toString());
        assertTrue(Files.isRegularFile(jar.getParent().getParent().getParent().resolve("queen")), jar.toString());
    }
}
