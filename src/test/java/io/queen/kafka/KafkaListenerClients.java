package io.queen.kafka;

import io.queen.kafka.transport.KafkaListener;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * What a Quarkus test of the Kafka listener needs to reach it with the Java client: the listener the test's broker
 * runs, its bootstrap address and an admin client. A test class extends it and keeps its own profile and database
 * annotations; a test of broker processes uses the static admin helpers with its own bootstrap address.
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
        return admin(bootstrap());
    }

    /** An admin client of the listener at {@code bootstrap}, default settings; the caller closes it. */
    public static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /**
     * A consumer's settings for the listener at {@code bootstrap}: in {@code group} (null: none), committing only
     * explicitly, starting at the earliest offset of a partition its group has no commit for.
     */
    public static Properties consumerProperties(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return p;
    }

    /** Creates {@code topics} through the listener at {@code bootstrap}, waiting up to 60 s for the answer. */
    public static void createTopicsAt(String bootstrap, NewTopic... topics) throws Exception {
        try (Admin a = admin(bootstrap)) {
            a.createTopics(List.of(topics)).all().get(60, TimeUnit.SECONDS);
        }
    }
}
