package io.queen.examples.streams;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A Kafka Streams application: orders (topic {@code orders}, key the order id, value {@code customer,amountCents})
 * are re-keyed by customer (a repartition topic), summed per customer in a state store backed by a changelog
 * topic, and every change of a customer's total is written to topic {@code customer-totals} (key the customer,
 * value {@code orderCount,amountCents,orderId}: the totals after the order named). With the store's cache off,
 * each order gives exactly one output record.
 *
 * <p>Plain Kafka Streams with {@code processing.guarantee=exactly_once_v2} and nothing of Queen: only
 * {@code bootstrap.servers} names a Queen broker's Kafka listener.
 *
 * <p>Usage: {@code CustomerTotals [file.properties]}: the file's settings (e.g. {@code bootstrap.servers},
 * {@code state.dir}) override the defaults below.
 */
public final class CustomerTotals {
    public static final String ORDERS = "orders";
    public static final String TOTALS = "customer-totals";
    /** The state store; its changelog topic is {@code <application.id>-customer-totals-store-changelog}. */
    public static final String STORE = "customer-totals-store";

    private CustomerTotals() {
    }

    public static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(ORDERS, Consumed.with(Serdes.String(), Serdes.String()))
                // customer,amountCents,orderId: the totals name the order that changed them
                .mapValues((orderId, order) -> order + "," + orderId)
                // a new key: Streams writes the orders to a repartition topic keyed by customer
                .groupBy((orderId, order) -> order.substring(0, order.indexOf(',')),
                        Grouped.with("by-customer", Serdes.String(), Serdes.String()))
                .aggregate(() -> "0,0,", (customer, order, total) -> add(total, order),
                        Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
                .toStream()
                .to(TOTALS, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    /** {@code total} ({@code count,sum,lastOrderId}) plus one {@code order} ({@code customer,amountCents,orderId}). */
    static String add(String total, String order) {
        String[] t = total.split(",", -1);
        String[] o = order.split(",", -1);
        return (Long.parseLong(t[0]) + 1) + "," + (Long.parseLong(t[1]) + Long.parseLong(o[1])) + "," + o[2];
    }

    public static Properties defaults() {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "customer-totals");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // one output record per order (no caching that merges a customer's updates)
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        return p;
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Properties props = defaults();
        if (args.length > 0) {
            try (Reader r = Files.newBufferedReader(Path.of(args[0]))) {
                props.load(r);
            }
        }
        KafkaStreams streams = new KafkaStreams(topology(), props);
        // what a restart had to read back from the changelog (all of it on a fresh state directory)
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            private final Map<TopicPartition, Long> started = new ConcurrentHashMap<>();

            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
                started.put(partition, System.nanoTime());
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long n) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long total) {
                Long t0 = started.remove(partition);
                long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
                System.out.println("restored " + total + " records of " + store + " from " + partition + " in " + ms
                        + " ms");
            }
        });
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            System.out.println("state " + before + " -> " + now);
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close();
            stopped.countDown();
        }));
        streams.start();
        stopped.await();
        streams.close();
        System.exit(streams.state() == KafkaStreams.State.ERROR ? 1 : 0);
    }
}
