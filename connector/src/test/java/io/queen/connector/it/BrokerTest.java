package io.queen.connector.it;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.queen.connector.app.Recorder;
import io.queen.connector.app.WeldApp;

/**
 * Base of the connector tests: one real broker (and database) per test class, and at most one in-process
 * application per test, closed after it.
 */
public abstract class BrokerTest {

    protected static Broker broker;
    protected WeldApp app;

    @BeforeAll
    static void startBroker(org.junit.jupiter.api.TestInfo info) {
        broker = Broker.start(info.getTestClass().map(Class::getSimpleName).orElse("test"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    @BeforeEach
    void clearRecorder() {
        Recorder.ENTRIES.clear();
    }

    @AfterEach
    void stopApp() {
        if (app != null) {
            app.close();
            app = null;
        }
    }

    /** Channel configuration: {@code prefix} is e.g. {@code mp.messaging.incoming.in}. */
    protected static Map<String, String> channel(String prefix, String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(prefix + ".connector", "smallrye-queen");
        m.put(prefix + ".url", broker.url());
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(prefix + "." + keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    protected static Map<String, String> merge(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new LinkedHashMap<>(a);
        m.putAll(b);
        return m;
    }
}
