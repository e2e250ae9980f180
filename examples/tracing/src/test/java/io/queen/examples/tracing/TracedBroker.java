package io.queen.examples.tracing;

import io.queen.testing.otel.OtlpReceiver;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;

/**
 * The test's broker: the repository's package, tracing, exporting its spans over OTLP/HTTP to {@link #receiver}.
 * The application is pointed at it (so Dev Services starts none). One per test run.
 */
public class TracedBroker implements QuarkusTestResourceLifecycleManager {

    /** The broker's spans; set while the broker runs. */
    static volatile OtlpReceiver receiver;

    private BrokerProcess broker;
    private String database;

    @Override
    public Map<String, String> start() {
        try {
            receiver = new OtlpReceiver();
            database = TestPostgres.createDatabase("tracing_example");
            broker = BrokerProcess.start("tracing", TestPostgres.server(), database, Map.of(
                    "QUEEN_TRACING_ENABLED", "true",
                    "QUEEN_TRACING_OTLP_ENDPOINT", receiver.endpoint(),
                    "DB_POOL_SIZE", "5"));
        } catch (Exception e) {
            stop();
            throw new IllegalStateException("tracing broker did not start", e);
        }
        return Map.of("mp.messaging.connector.smallrye-queen.url", broker.url());
    }

    @Override
    public void stop() {
        try {
            if (broker != null) {
                broker.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (database != null) {
            TestPostgres.dropDatabase(database);
        }
        if (receiver != null) {
            receiver.close();
        }
    }
}
