package io.queen.kafka;

import io.queen.testing.Settings;
import java.util.Arrays;

/** The Kafka listener on, on a free port, announcing 127.0.0.1. */
public class KafkaEnabled extends Settings {
    /** What a group member may keep: below the frame limit, so a test's client can send more. */
    public static final int MAX_MEMBER_BYTES = 64 * 1024;
    private static final String[] BASE = {"queen.kafka.enabled", "true", "queen.kafka.port", "0",
            "queen.kafka.advertised-host", "127.0.0.1", "queen.kafka.max-frame-bytes", "1M",
            "queen.kafka.max-batch-bytes", "256K", "queen.kafka.default-partitions", "3",
            "queen.kafka.group.max-member-bytes", Integer.toString(MAX_MEMBER_BYTES),
            "quarkus.log.category.\"org.apache.kafka\".level", "WARN"};

    public KafkaEnabled() {
        super(BASE);
    }

    /** The listener on, with further settings (name, value pairs). */
    protected KafkaEnabled(String... more) {
        super(concat(more));
    }

    private static String[] concat(String[] more) {
        String[] all = Arrays.copyOf(BASE, BASE.length + more.length);
        System.arraycopy(more, 0, all, BASE.length, more.length);
        return all;
    }
}
