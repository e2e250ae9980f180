package io.queen.kafka.group;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A Java {@code KafkaConsumer} subscribed with a group on its own thread, as an application runs one: it polls,
 * records every record it is given, and commits what it consumed after every poll (auto-commit off, so the committed
 * offsets are exactly what was delivered). Tests read what it saw from the shared delivery list.
 */
public final class GroupConsumer extends Thread {
    static final int SESSION_MS = 3000;

    /** What a consumer saw: its name, the assignment round the partition was received in, the record. */
    public record Delivery(String consumer, int round, int partition, long offset, String value) {
    }

    final KafkaConsumer<String, String> consumer;
    final Collection<Delivery> deliveries;
    final Map<Integer, Integer> roundOf = new ConcurrentHashMap<>();
    final AtomicInteger rounds = new AtomicInteger();
    final String topic;
    /** What it subscribes to instead of {@link #topic}: a {@link SubscriptionPattern}, a {@link Pattern}, or null. */
    final Object pattern;
    public volatile CloseOptions.GroupMembershipOperation closeWith;
    public volatile Throwable failure;

    public GroupConsumer(String bootstrap, String name, String group, String assignor, String topic,
            Collection<Delivery> deliveries, String instanceId) {
        this(name, classic(bootstrap, name, group, assignor, instanceId), topic, null, deliveries);
    }

    /**
     * A consumer of the consumer group protocol (KIP-848) subscribed to {@code topic}, or when not null to the topics
     * matching {@code pattern}: a {@link SubscriptionPattern} (resolved by the broker) or a {@link Pattern}
     * (resolved by the client from metadata it refreshes every half second). With the broker-side
     * {@code assignor} (null: the broker's default); session and heartbeat timings are the broker's.
     */
    static GroupConsumer consumerProtocol(String bootstrap, String name, String group, String assignor, String topic,
            Object pattern, Collection<Delivery> deliveries, String instanceId) {
        Properties p = common(bootstrap, name, group, instanceId);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        if (pattern instanceof Pattern) {
            p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500);
        }
        if (assignor != null) {
            p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
        }
        return new GroupConsumer(name, p, topic, pattern, deliveries);
    }

    private GroupConsumer(String name, Properties p, String topic, Object pattern,
            Collection<Delivery> deliveries) {
        super(name);
        this.topic = topic;
        this.pattern = pattern;
        this.deliveries = deliveries;
        consumer = new KafkaConsumer<>(p);
    }

    private static Properties classic(String bootstrap, String name, String group, String assignor,
            String instanceId) {
        Properties p = common(bootstrap, name, group, instanceId);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        return p;
    }

    private static Properties common(String bootstrap, String name, String group, String instanceId) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        if (instanceId != null) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return p;
    }

    @Override
    public void run() {
        try {
            ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> roundOf.remove(tp.partition()));
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    int round = rounds.incrementAndGet();
                    partitions.forEach(tp -> roundOf.put(tp.partition(), round));
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    onPartitionsRevoked(partitions);
                }
            };
            if (pattern instanceof SubscriptionPattern broker) {
                consumer.subscribe(broker, listener);
            } else if (pattern instanceof Pattern client) {
                consumer.subscribe(client, listener);
            } else {
                consumer.subscribe(List.of(topic), listener);
            }
            while (closeWith == null) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    deliveries.add(new Delivery(getName(), roundOf.getOrDefault(r.partition(), -1), r.partition(),
                            r.offset(), r.value()));
                }
                if (!records.isEmpty()) {
                    try {
                        consumer.commitSync();
                    } catch (KafkaException rebalancing) {
                        // a rebalance (or a lost coordinator) took the partitions before the commit: whoever
                        // owns them next re-reads from the last commit
                    }
                }
            }
            consumer.close(CloseOptions.groupMembershipOperation(closeWith));
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Produces records "p:n" at offsets n = from .. from + count - 1 of partitions 0 .. partitions - 1. */
    public static void produce(String bootstrap, String topic, int partitions, int from, int count) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int part = 0; part < partitions; part++) {
                for (int i = from; i < from + count; i++) {
                    producer.send(new ProducerRecord<>(topic, part, "k", part + ":" + i));
                }
            }
            producer.flush();
        }
    }

    /** The group's committed offsets by partition (-1: none); empty while no broker answers. */
    static Map<Integer, Long> committed(Admin admin, String group) {
        try {
            Map<Integer, Long> out = new HashMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                    .forEach((tp, o) -> out.put(tp.partition(), o == null ? -1 : o.offset()));
            return out;
        } catch (Exception e) {
            return Map.of(); // no broker answers yet
        }
    }

    void stopAndJoin(CloseOptions.GroupMembershipOperation how) throws InterruptedException {
        closeWith = how;
        join(30_000);
    }

    /**
     * Asserts what every consumer of a group saw: each partition's offsets 0..count-1 all delivered, offset n holding
     * value "partition:n", and within one assignment of a partition to one consumer the offsets consecutive (order
     * per partition, no gaps).
     */
    static void assertEveryRecordInOrder(Collection<Delivery> deliveries, int partitions, int count) {
        for (Delivery d : deliveries) {
            if (!(d.partition() + ":" + d.offset()).equals(d.value())) {
                throw new AssertionError("offset " + d.offset() + " of partition " + d.partition() + " holds "
                        + d.value());
            }
        }
        assertEveryOffsetInOrder(deliveries, partitions, count);
    }

    /**
     * Asserts that each partition's offsets 0..count-1 were all delivered and that within one assignment of a
     * partition to one consumer the offsets came consecutive (order per partition, no gaps), whatever they hold.
     */
    static void assertEveryOffsetInOrder(Collection<Delivery> deliveries, int partitions, int count) {
        Map<Integer, TreeSet<Long>> seen = new HashMap<>();
        Map<String, List<Delivery>> runs = new HashMap<>();
        for (Delivery d : deliveries) {
            seen.computeIfAbsent(d.partition(), k -> new TreeSet<>()).add(d.offset());
            runs.computeIfAbsent(d.consumer() + "/" + d.round() + "/" + d.partition(), k -> new ArrayList<>()).add(d);
        }
        for (int p = 0; p < partitions; p++) {
            TreeSet<Long> got = seen.getOrDefault(p, new TreeSet<>());
            if (got.size() != count || (count > 0 && got.last() != count - 1)) {
                throw new AssertionError("partition " + p + ": delivered " + got.size() + " distinct offsets of "
                        + count);
            }
        }
        runs.forEach((run, list) -> {
            for (int i = 1; i < list.size(); i++) {
                if (list.get(i).offset() != list.get(i - 1).offset() + 1) {
                    throw new AssertionError(run + ": offset " + list.get(i).offset() + " after "
                            + list.get(i - 1).offset());
                }
            }
        });
    }
}
