package io.queen.testing;

import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two broker processes, {@code a} and {@code b}, on one fresh {@link BrokerDatabase}, for the tests of one class:
 * registered on a static field with {@code @RegisterExtension}, it starts both before the class's tests and closes
 * the database after them (storage invariants checked, brokers stopped, database dropped). A test may kill a broker
 * and start it again on the same settings ({@link #restartA}). Not thread-safe: owned by one test class.
 */
public final class TwoBrokers implements BeforeAllCallback, AfterAllCallback {
    private final String owner;
    private final String nameA;
    private final Map<String, String> envA;
    private final String nameB;
    private final Map<String, String> envB;
    private BrokerDatabase database;
    private BrokerProcess a;
    private BrokerProcess b;

    /** Brokers named {@code nameA} and {@code nameB} with their extra environment, on a database of {@code owner}. */
    public TwoBrokers(String owner, String nameA, Map<String, String> envA, String nameB, Map<String, String> envB) {
        this.owner = owner;
        this.nameA = nameA;
        this.envA = envA;
        this.nameB = nameB;
        this.envB = envB;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        database = BrokerDatabase.create(owner);
        a = database.start(nameA, envA);
        b = database.start(nameB, envB);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        database.close();
    }

    public BrokerDatabase database() {
        return database;
    }

    public BrokerProcess a() {
        return a;
    }

    public BrokerProcess b() {
        return b;
    }

    /** Starts broker {@code a} again (after the test killed it), on its name, environment and spool directory. */
    public BrokerProcess restartA() throws Exception {
        a = database.start(nameA, envA);
        return a;
    }
}
