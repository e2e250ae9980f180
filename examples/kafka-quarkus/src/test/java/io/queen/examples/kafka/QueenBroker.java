package io.queen.examples.kafka;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.time.Duration;
import java.util.Map;

/**
 * A real Queen broker (the repository's packaged jar) with its Kafka listener on, on free ports and a database of
 * its own; the application's {@code kafka.bootstrap.servers} points at that listener and {@code queen.test.url}
 * names its HTTP API.
 */
public class QueenBroker implements QuarkusTestResourceLifecycleManager {
    private BrokerProcess broker;
    private String database;

    @Override
    public Map<String, String> start() {
        try {
            TestPostgres.Server pg = TestPostgres.server();
            database = TestPostgres.createDatabase("kafka_quarkus");
            int kafkaPort = BrokerProcess.freePort();
            broker = BrokerProcess.start("kafka-quarkus", pg, database, Map.of(
                    "QUEEN_KAFKA_ENABLED", "true",
                    "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                    "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1",
                    // three partitions per topic: the customers' orders spread over them
                    "QUEEN_KAFKA_DEFAULT_PARTITIONS", "3",
                    "DB_POOL_SIZE", "5"));
            broker.awaitListening(kafkaPort, Duration.ofSeconds(30));
            return Map.of("kafka.bootstrap.servers", "127.0.0.1:" + kafkaPort, "queen.test.url", broker.url());
        } catch (Exception e) {
            stop();
            throw new IllegalStateException("Queen broker did not start: " + e.getMessage(), e);
        }
    }

    @Override
    public void stop() {
        try {
            if (broker != null) {
                broker.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (database != null) {
                TestPostgres.dropDatabase(database);
            }
        }
    }
}
