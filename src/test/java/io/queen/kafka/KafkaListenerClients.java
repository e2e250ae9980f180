package io.queen.kafka;

import jakarta.inject.Inject;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * What a Quarkus test of the Kafka listener needs to reach it with the Java client: the listener the test's broker
 * runs, its bootstrap address and an admin client. A test class extends it and keeps its own profile and database
 * annotations.
 */
public abstract class KafkaListenerClients {
    @Inject
    protected KafkaListener listener;

    /** The bootstrap address of the test broker's Kafka listener. */
    protected String bootstrap() {
        return "127.0.0.1:" + listener.port();
    }

    /** An admin client with default settings; the caller closes it. */
    protected Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        return Admin.create(p);
    }
}
