package io.queen.kafka;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.util.HashMap;
import java.util.Map;

/**
 * One broker process with its Kafka listener on a database of its own, for the tests that kill a broker with -9 and
 * start it again: the same database, port and settings each time. Not thread-safe; one owner (a test class).
 */
public final class KafkaBrokerProcess implements AutoCloseable {
    private final String name;
    private final TestPostgres.Server pg = TestPostgres.server();
    private final String db;
    private final int kafkaPort;
    private final Map<String, String> env = new HashMap<>();
    private BrokerProcess broker;

    /** Starts {@code name} on a new database, the Kafka listener on, with {@code settings} (name, value pairs). */
    public KafkaBrokerProcess(String name, String... settings) throws Exception {
        this.name = name;
        this.db = TestPostgres.createDatabase(name.replace("-", ""));
        this.kafkaPort = BrokerProcess.freePort();
        env.putAll(Map.of("QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1", "QUEEN_KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS", "1000",
                "QUEEN_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0"));
        for (int i = 0; i + 1 < settings.length; i += 2) {
            env.put(settings[i], settings[i + 1]);
        }
        this.broker = BrokerProcess.start(name, pg, db, env);
    }

    public String bootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    /** The JDBC URL of the broker's database. */
    public String jdbcUrl() {
        return pg.jdbcUrl(db);
    }

    public TestPostgres.Server server() {
        return pg;
    }

    /** Kills the broker with -9 and starts it again on the same database and port. */
    public void killAndRestart() throws Exception {
        broker.kill();
        broker = BrokerProcess.start(name, pg, db, env);
    }

    @Override
    public void close() throws Exception {
        if (broker != null) {
            broker.close();
        }
        TestPostgres.dropDatabase(db);
    }
}
