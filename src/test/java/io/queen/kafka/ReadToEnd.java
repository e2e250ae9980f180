package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** What a Kafka consumer of an isolation level reads of some partitions, from the beginning to their end offsets. */
public final class ReadToEnd {
    private ReadToEnd() {
    }

    /** The partitions 0 .. {@code partitions - 1} of each topic. */
    public static List<TopicPartition> partitions(int partitions, String... topics) {
        List<TopicPartition> out = new ArrayList<>();
        for (String t : topics) {
            for (int i = 0; i < partitions; i++) {
                out.add(new TopicPartition(t, i));
            }
        }
        return out;
    }

    /** The values (UTF-8) in the order read; {@code isolation} is read_committed or read_uncommitted. */
    public static List<String> values(String bootstrap, String isolation, List<TopicPartition> tps) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            List<String> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "reading to the end offsets " + end);
                c.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
            }
            return out;
        }
    }

    /** The same, sorted. */
    public static List<String> sorted(String bootstrap, String isolation, List<TopicPartition> tps) {
        List<String> out = values(bootstrap, isolation, tps);
        out.sort(null);
        return out;
    }
}
