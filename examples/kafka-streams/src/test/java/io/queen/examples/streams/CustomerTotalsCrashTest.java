package io.queen.examples.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link CustomerTotals} as a process of its own against a real Queen broker (the repository's packaged jar, its
 * Kafka listener on, a database of its own): {@value #ORDERS} orders are produced, the application is killed with
 * SIGKILL twice while it works (once its output passes a third of the orders, once it passes two thirds) and
 * restarted each time, the second time on a fresh state directory so its store is restored from the changelog
 * topic. The output topic, read with a read_committed consumer, must then name every order (nothing lost); with
 * {@code exactly_once_v2} every order exactly once, each customer's counts 1..n in order and its final sum exact.
 */
class CustomerTotalsCrashTest {
    static final int ORDERS = 20_000;
    static final int CUSTOMERS = 50;
    static final int PARTITIONS = 4;
    static final String APP = "customer-totals";
    /** The processing guarantee under test: {@code -Dstreams.guarantee=...} overrides it. */
    static final String GUARANTEE = System.getProperty("streams.guarantee", StreamsConfig.EXACTLY_ONCE_V2);
    static final String COMPACTION_INTERVAL_MS = System.getProperty("compaction.interval.ms", "1000");
    static final String CHANGELOG = APP + "-" + CustomerTotals.STORE + "-changelog";

    static TestPostgres.Server pg;
    static String database;
    static BrokerProcess broker;
    static String bootstrap;

    @BeforeAll
    static void startBroker() throws Exception {
        pg = TestPostgres.server();
        database = TestPostgres.createDatabase("kafka_streams");
        int kafkaPort = BrokerProcess.freePort();
        broker = BrokerProcess.start("kafka-streams", pg, database, Map.of(
                "QUEEN_KAFKA_ENABLED", "true",
                "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1",
                "QUEEN_KAFKA_DEFAULT_PARTITIONS", String.valueOf(PARTITIONS),
                // a restarted application joins at once; a killed member is dropped after its 6 s session
                "QUEEN_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0",
                // the store's changelog is compacted while the application runs, as a long-lived broker's would be
                // over hours; -Dcompaction.interval.ms=86400000 measures a restore from the whole history
                "QUEEN_COMPACTION_INTERVAL_MS", COMPACTION_INTERVAL_MS,
                "DB_POOL_SIZE", "5"));
        broker.awaitListening(kafkaPort, Duration.ofSeconds(30));
        bootstrap = "127.0.0.1:" + kafkaPort;
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        if (database != null) {
            TestPostgres.dropDatabase(database);
        }
    }

    @Test
    void twoKillsLoseNothingAndTheTotalsAreExact() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(CustomerTotals.ORDERS, PARTITIONS, (short) 1),
                    new NewTopic(CustomerTotals.TOTALS, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Map<String, Integer> expectedCount = new TreeMap<>();
        Map<String, Long> expectedSum = new TreeMap<>();
        produceOrders(expectedCount, expectedSum);

        Path work = Path.of("target", "crash-test").toAbsolutePath();
        deleteRecursively(work);
        Path stateA = work.resolve("state-a");
        Path stateB = work.resolve("state-b");
        int restarts = 0;
        long[] killedAt = new long[2];
        Compacted compacted;
        try (KafkaConsumer<String, String> watch = consumer(false)) {
            LongSupplier written = () -> totalEnd(watch, CustomerTotals.TOTALS);
            Process run = startApp(work, stateA, 1);
            killedAt[0] = killWhenPast(run, written, ORDERS / 3);
            restarts++;
            run = startApp(work, stateA, 2);  // the same state directory: local store, changelog from its checkpoint
            killedAt[1] = killWhenPast(run, written, 2 * ORDERS / 3);
            restarts++;
            compacted = awaitChangelogCompacted();
            run = startApp(work, stateB, 3);  // a fresh state directory: the store is restored from the changelog
            awaitCaughtUp(run, watch);
            run.destroy();  // SIGTERM: the application closes cleanly
            assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the application exits on SIGTERM");
        }
        long restored = restored(work.resolve("run-3.log"));
        assertTrue(restored > 0, "the fresh state directory was restored from the changelog");
        if (compacted.cleaned() > 0) {
            // bounded by the keys, not the history: at most one record per customer from the compacted section, then
            // what lies past it (the last write of each partition, which compaction leaves alone, and fewer dirty
            // records than the clean section keeps)
            assertTrue(restored <= CUSTOMERS + compacted.history() - compacted.cleaned(), restored + " restored");
        }

        // every output record, committed ones only
        Map<String, List<String[]>> byCustomer = new TreeMap<>();
        Map<String, Integer> seenOrders = new HashMap<>();
        int out = 0;
        try (KafkaConsumer<String, String> c = consumer(true)) {
            for (ConsumerRecord<String, String> r : readAll(c, CustomerTotals.TOTALS)) {
                String[] v = r.value().split(",", -1);
                byCustomer.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(v);
                seenOrders.merge(v[2], 1, Integer::sum);
                out++;
            }
        }
        int lost = 0;
        for (int i = 0; i < ORDERS; i++) {
            if (!seenOrders.containsKey(orderId(i))) {
                lost++;
            }
        }
        int duplicates = 0;
        for (int n : seenOrders.values()) {
            duplicates += n - 1;
        }
        int wrongTotals = 0;
        for (Map.Entry<String, Integer> e : expectedCount.entrySet()) {
            List<String[]> totals = byCustomer.getOrDefault(e.getKey(), List.of());
            String[] last = totals.isEmpty() ? new String[] {"0", "0", ""} : totals.get(totals.size() - 1);
            if (Long.parseLong(last[0]) != e.getValue() || Long.parseLong(last[1]) != expectedSum.get(e.getKey())) {
                wrongTotals++;
            }
        }
        System.out.printf("kafka-streams crash test (%s): records in %d, records out %d, duplicates %d, lost %d,"
                        + " customers with a wrong final total %d of %d, restarts %d (SIGKILL at %d and %d records"
                        + " out, the second restart on a fresh state directory, %d changelog records restored of a"
                        + " history of %d updates, %d of them in its compacted section)%n",
                GUARANTEE, ORDERS, out, duplicates, lost, wrongTotals, CUSTOMERS, restarts, killedAt[0],
                killedAt[1], restored, compacted.history(), compacted.cleaned());

        assertEquals(0, lost, "orders missing from the output");
        if (!GUARANTEE.equals(StreamsConfig.AT_LEAST_ONCE)) {
            assertEquals(0, duplicates, "orders counted more than once");
            assertEquals(ORDERS, out, "one output record per order");
            assertEquals(0, wrongTotals, "customers whose final count or sum is wrong");
            // each customer's updates in order: counts 1..n, each sum the previous one plus that order's amount
            for (Map.Entry<String, List<String[]>> e : byCustomer.entrySet()) {
                long sum = 0;
                for (int k = 0; k < e.getValue().size(); k++) {
                    String[] v = e.getValue().get(k);
                    sum += amount(Integer.parseInt(v[2].substring(2)));
                    assertEquals(k + 1, Long.parseLong(v[0]), e.getKey() + " update " + k);
                    assertEquals(sum, Long.parseLong(v[1]), e.getKey() + " sum after update " + k);
                }
            }
        }
    }

    static String orderId(int i) {
        return String.format("o-%06d", i);
    }

    static long amount(int i) {
        return 100 + (i * 37L) % 9_900;
    }

    static void produceOrders(Map<String, Integer> count, Map<String, Long> sum) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < ORDERS; i++) {
                String customer = "c-" + (i % CUSTOMERS);
                producer.send(new ProducerRecord<>(CustomerTotals.ORDERS, orderId(i), customer + "," + amount(i)));
                count.merge(customer, 1, Integer::sum);
                sum.merge(customer, amount(i), Long::sum);
            }
            producer.flush();
        }
    }

    /** The application as a process of its own (so SIGKILL is real), its output in target/crash-test/run-N.log. */
    static Process startApp(Path work, Path stateDir, int run) throws IOException {
        Files.createDirectories(work);
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, GUARANTEE);
        // a killed instance's partitions move to its successor once its session expires
        props.put("session.timeout.ms", "6000");
        props.put("heartbeat.interval.ms", "1500");
        // purge the repartition topic often (DeleteRecords)
        props.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, "2000");
        Path file = work.resolve("run-" + run + ".properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            props.store(w, null);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), CustomerTotals.class.getName(), file.toString());
        pb.redirectErrorStream(true);
        pb.redirectOutput(work.resolve("run-" + run + ".log").toFile());
        return pb.start();
    }

    /** SIGKILL as soon as the output holds {@code threshold} records; the output count seen then. */
    static long killWhenPast(Process run, LongSupplier written, long threshold) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            assertTrue(run.isAlive(), "the application exited on its own (exit " + exitCode(run) + ")");
            long n = written.getAsLong();
            if (n >= threshold) {
                run.destroyForcibly();
                run.waitFor();
                assertTrue(n < ORDERS, "killed mid-stream: " + n + " of " + ORDERS + " records out");
                return n;
            }
            assertTrue(System.nanoTime() < deadline, "output stuck at " + n + " records");
            Thread.sleep(20);
        }
    }

    /** Waits until the application's group has committed every order and every repartitioned record. */
    static void awaitCaughtUp(Process run, KafkaConsumer<String, String> watch) throws Exception {
        String repartition = APP + "-by-customer-repartition";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            while (true) {
                assertTrue(run.isAlive(), "the application exited on its own (exit " + exitCode(run) + ")");
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(APP)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                long orders = committedTotal(committed, CustomerTotals.ORDERS);
                long repartitioned = committedTotal(committed, repartition);
                if (orders == ORDERS && repartitioned == totalEnd(watch, repartition)) {
                    return;
                }
                assertTrue(System.nanoTime() < deadline, "not caught up: " + orders + " orders, " + repartitioned
                        + " repartitioned records committed");
                Thread.sleep(200);
            }
        }
    }

    static long committedTotal(Map<TopicPartition, OffsetAndMetadata> committed, String topic) {
        return committed.entrySet().stream().filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset()).sum();
    }

    static long totalEnd(KafkaConsumer<String, String> c, String topic) {
        List<TopicPartition> tps = partitions(topic);
        return c.endOffsets(tps, Duration.ofSeconds(30)).values().stream().mapToLong(Long::longValue).sum();
    }

    static List<TopicPartition> partitions(String topic) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    static KafkaConsumer<String, String> consumer(boolean readCommitted) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Every record of the topic from the beginning up to its end offsets (the last stable offsets). */
    static List<ConsumerRecord<String, String>> readAll(KafkaConsumer<String, String> c, String topic) {
        List<TopicPartition> tps = partitions(topic);
        c.assign(tps);
        c.seekToBeginning(tps);
        Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
            assertTrue(System.nanoTime() < deadline, "output not read to its end within 60 s");
            c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    /** The store's changelog once compaction caught up: its history (log end offsets) and its compacted section. */
    record Compacted(long history, long cleaned) {
    }

    /**
     * With the application stopped, waits until no partition of the changelog is due for compaction any more (by the
     * broker's defaults: fewer records past the compaction point than it keeps, the head left alone), so the restart's
     * restore reads the compacted section plus what compaction leaves by design, not a pass that happened to be late.
     * Returns at once, with nothing compacted, when the duty's interval is beyond the test's length.
     */
    static Compacted awaitChangelogCompacted() throws Exception {
        String sql = "SELECT coalesce(sum(lp.last_offset + 1), 0), coalesce(sum(d.cleaned_to + 1), 0),"
                + " coalesce(bool_or(d.due), true)"
                + " FROM queen.log_compaction_due_v1(now(), 0, 9223372036854775807, 86400000, 0.5) d"
                + " JOIN queen.log_partitions lp ON lp.id = d.partition_id WHERE d.queue_name = ?";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(database), pg.user(), pg.password());
                PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, CHANGELOG);
            while (true) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (Long.parseLong(COMPACTION_INTERVAL_MS) > 60_000 || !rs.getBoolean(3)) {
                        return new Compacted(rs.getLong(1), rs.getLong(2));
                    }
                    assertTrue(System.nanoTime() < deadline, "changelog still due for compaction after 120 s");
                }
                Thread.sleep(200);
            }
        }
    }

    /** The changelog records a run restored, from the application's {@code restored N records of ...} lines. */
    static long restored(Path log) throws IOException {
        long n = 0;
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("restored ")) {
                n += Long.parseLong(line.split(" ")[1]);
            }
        }
        return n;
    }

    static String exitCode(Process p) {
        return p.isAlive() ? "running" : Integer.toString(p.exitValue());
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
