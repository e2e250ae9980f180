package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import jakarta.inject.Inject;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.LogDirsCommand;
import org.apache.kafka.tools.TopicCommand;
import org.apache.kafka.tools.TransactionsCommand;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.Test;

/**
 * The admin calls of the Java admin client and of Apache Kafka's own tools (run in-process from kafka-tools)
 * against the listener: CreatePartitions (Admin.createPartitions, kafka-topics --alter), DescribeCluster,
 * DescribeLogDirs (Admin.describeLogDirs, kafka-log-dirs) and DescribeProducers (Admin.describeProducers,
 * kafka-transactions describe-producers), and kafka-consumer-groups describing and resetting a classic group.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaAdminTest extends KafkaListenerClients {
    @Inject
    BrokerRegistry cluster;

    @Inject
    AgroalDataSource ds;

    void createTopic(String name, int partitions) throws Exception {
        createTopicsAt(bootstrap(), new NewTopic(name, partitions, (short) 1));
    }

    int partitionCount(Admin a, String topic) throws Exception {
        return a.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                .size();
    }

    /** The exception a createPartitions of {@code topic} to {@code count} failed with. */
    static Throwable growFails(Admin a, String topic, NewPartitions grow, boolean validateOnly) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> a.createPartitions(Map.of(topic, grow),
                new CreatePartitionsOptions().validateOnly(validateOnly)).all().get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** One record to {@code topic}'s {@code partition} in a raw Produce (no Metadata first): its partition's error. */
    static Errors produceOne(Socket s, int correlationId, String topic, int partition) throws Exception {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(
                        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))))));
        ProduceResponseData r = KafkaFrames.call(s, ApiKeys.PRODUCE, (short) 9, correlationId,
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics));
        return Errors.forCode(r.responses().iterator().next().partitionResponses().get(0).errorCode());
    }

    /**
     * Produce takes a topic it found less than a second ago as found, without reading it again; a topic grown or
     * deleted on this broker is seen at the next Produce all the same: a partition past the count it found is read
     * again, and a deleted topic is forgotten, so a Produce right after the delete creates it anew with the default
     * count (3 here) instead of writing the old topic's partition 3.
     */
    @Test
    void produceSeesATopicGrownOrDeletedOnThisBrokerAtOnce() throws Exception {
        createTopic("seen-at-once", 2);
        try (Socket s = KafkaFrames.connect(listener.port()); Admin a = admin()) {
            assertEquals(Errors.NONE, produceOne(s, 1, "seen-at-once", 1));
            a.createPartitions(Map.of("seen-at-once", NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
            assertEquals(Errors.NONE, produceOne(s, 2, "seen-at-once", 3), "the partition CreatePartitions added");
            a.deleteTopics(List.of("seen-at-once")).all().get(30, TimeUnit.SECONDS);
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, produceOne(s, 3, "seen-at-once", 3),
                    "the deleted topic's partition 3 is gone; auto-creation made a topic of 3 partitions");
            assertEquals(3, partitionCount(a, "seen-at-once"));
        }
    }

    @Test
    void createPartitionsGrowsATopicThatProducersAndGroupsThenUse() throws Exception {
        createTopic("grown", 2);
        try (Admin a = admin()) {
            a.createPartitions(Map.of("grown", NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
            assertEquals(4, partitionCount(a, "grown"), "Metadata shows the new count");

            KafkaTool.Run alter = KafkaTool.run(TopicCommand::main, "--bootstrap-server", bootstrap(), "--alter",
                    "--topic", "grown", "--partitions", "6");
            assertEquals(0, alter.exit(), alter.toString());
            assertEquals(6, partitionCount(a, "grown"));
            KafkaTool.Run shrink = KafkaTool.run(TopicCommand::main, "--bootstrap-server", bootstrap(), "--alter",
                    "--topic", "grown", "--partitions", "3");
            assertEquals(1, shrink.exit(), shrink.toString());
            assertTrue(shrink.toString().contains(
                    "The topic grown currently has 6 partition(s); 3 would not be an increase."), shrink.toString());
        }
        try (KafkaProducer<String, String> p = producer(null)) {
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>("grown", i, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProperties(bootstrap(), "grown-readers"),
                new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of("grown"));
            Set<Integer> partitions = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.size() < 6 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                    assertEquals("v" + r.partition(), r.value());
                    partitions.add(r.partition());
                }
            }
            assertEquals(Set.of(0, 1, 2, 3, 4, 5), partitions, "the group reads the new partitions");
            c.commitSync();
        }
    }

    @Test
    void createPartitionsRefusesWhatApacheKafkaRefuses() throws Exception {
        createTopic("fixed", 3);
        try (Admin a = admin()) {
            for (boolean validateOnly : List.of(true, false)) {
                Throwable same = growFails(a, "fixed", NewPartitions.increaseTo(3), validateOnly);
                assertInstanceOf(InvalidPartitionsException.class, same);
                assertEquals("Topic already has 3 partition(s).", same.getMessage());
                Throwable fewer = growFails(a, "fixed", NewPartitions.increaseTo(1), validateOnly);
                assertInstanceOf(InvalidPartitionsException.class, fewer);
                assertEquals("The topic fixed currently has 3 partition(s); 1 would not be an increase.",
                        fewer.getMessage());
                assertInstanceOf(UnknownTopicOrPartitionException.class,
                        growFails(a, "no-such-topic", NewPartitions.increaseTo(5), validateOnly));
                Throwable few = growFails(a, "fixed", NewPartitions.increaseTo(6, List.of(List.of(1))), validateOnly);
                assertInstanceOf(InvalidReplicaAssignmentException.class, few);
                assertEquals("Attempted to add 3 additional partition(s), but only 1 assignment(s) were specified.",
                        few.getMessage());
                Throwable stranger = growFails(a, "fixed", NewPartitions.increaseTo(4, List.of(List.of(77))),
                        validateOnly);
                assertInstanceOf(InvalidReplicaAssignmentException.class, stranger);
                assertEquals("The manual partition assignment includes broker 77, but no such broker is registered.",
                        stranger.getMessage());
                assertInstanceOf(InvalidPartitionsException.class, growFails(a, "fixed",
                        NewPartitions.increaseTo(Integer.MAX_VALUE), validateOnly));
            }
            a.createPartitions(Map.of("fixed", NewPartitions.increaseTo(9)), new CreatePartitionsOptions()
                    .validateOnly(true)).all().get(30, TimeUnit.SECONDS);
            assertEquals(3, partitionCount(a, "fixed"), "validateOnly changes nothing");

            // assignments naming live brokers are accepted, and leadership still follows the cluster's spread
            int self = cluster.nodeId();
            a.createPartitions(Map.of("fixed", NewPartitions.increaseTo(5, List.of(List.of(self), List.of(self)))))
                    .all().get(30, TimeUnit.SECONDS);
            assertEquals(5, partitionCount(a, "fixed"));
        }
        try (Socket s = KafkaFrames.connect(listener.port())) {
            CreatePartitionsRequestData twice = new CreatePartitionsRequestData().setTimeoutMs(30000);
            twice.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("fixed").setCount(7));
            twice.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("fixed").setCount(8));
            CreatePartitionsResponseData r = KafkaFrames.call(s, ApiKeys.CREATE_PARTITIONS, (short) 3, 1, twice);
            assertEquals(2, r.results().size());
            for (CreatePartitionsResponseData.CreatePartitionsTopicResult t : r.results()) {
                assertEquals(Errors.INVALID_REQUEST.code(), t.errorCode());
                assertEquals("Duplicate topic in request.", t.errorMessage());
            }
        }
        try (Admin a = admin()) {
            assertEquals(5, partitionCount(a, "fixed"), "a refused request changes nothing");
        }
    }

    @Test
    void aQueueCreatedOverHttpGrowsToo() throws Exception {
        Api.pushN("http-queue", "0", "m", 0, 2);
        Api.pushN("http-queue", "1", "m", 0, 2);
        try (Admin a = admin()) {
            assertEquals(2, partitionCount(a, "http-queue"), "its highest numeric partition + 1");
            a.createPartitions(Map.of("http-queue", NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
            assertEquals(4, partitionCount(a, "http-queue"));
        }
    }

    @Test
    void concurrentGrowsEndWithTheLargestCount() throws Exception {
        createTopic("raced", 1);
        // one admin client (one connection) per grow, all connected before any grow is sent
        List<Admin> admins = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            for (int i = 0; i < 8; i++) {
                Admin a = admin();
                a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                admins.add(a);
            }
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < admins.size(); i++) {
                Admin a = admins.get(i);
                int count = 2 + i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                        a.createPartitions(Map.of("raced", NewPartitions.increaseTo(count))).all()
                                .get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        failures.add(e.getCause());
                    } catch (Exception e) {
                        failures.add(e);
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(9, partitionCount(admins.get(0), "raced"), "the largest count, whatever the order");
        } finally {
            admins.forEach(Admin::close);
        }
        for (Throwable f : failures) {
            assertInstanceOf(InvalidPartitionsException.class, f, "a grow that came after a larger one");
        }
        assertTrue(failures.size() < 8, "the largest grow succeeded: " + failures);
    }

    @Test
    void describeClusterAnswersWhatMetadataLists() throws Exception {
        try (Admin a = admin()) {
            DescribeClusterResult d = a.describeCluster();
            assertEquals("queen", d.clusterId().get(30, TimeUnit.SECONDS));
            List<Node> nodes = new ArrayList<>(d.nodes().get(30, TimeUnit.SECONDS));
            assertEquals(1, nodes.size());
            assertEquals(cluster.nodeId(), nodes.get(0).id());
            assertEquals("127.0.0.1", nodes.get(0).host());
            assertEquals(listener.port(), nodes.get(0).port());
            assertEquals(cluster.nodeId(), d.controller().get(30, TimeUnit.SECONDS).id());
            assertNull(d.authorizedOperations().get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void describeLogDirsGivesEachPartitionsStoredSize() throws Exception {
        createTopic("sized", 3);
        try (KafkaProducer<String, String> p = producer(null)) {
            for (int i = 0; i < 50; i++) {
                p.send(new ProducerRecord<>("sized", i % 2, "k" + i, "value number " + i));
            }
            p.flush();
        }
        int self = cluster.nodeId();
        try (Admin a = admin()) {
            Map<String, LogDirDescription> dirs = a.describeLogDirs(List.of(self)).descriptions().get(self)
                    .get(30, TimeUnit.SECONDS);
            assertEquals(Set.of("postgresql"), dirs.keySet());
            LogDirDescription dir = dirs.get("postgresql");
            assertNull(dir.error());
            for (int part = 0; part < 3; part++) {
                ReplicaInfo info = dir.replicaInfos().get(new TopicPartition("sized", part));
                long stored = Sql.count(ds, "SELECT COALESCE(sum(octet_length(s.blob)), 0)"
                        + " FROM queen.log_segments s JOIN queen.log_partitions lp ON lp.id = s.partition_id"
                        + " JOIN queen.queues q ON q.id = lp.queue_id WHERE q.name = 'sized' AND lp.name = '"
                        + part + "'");
                assertEquals(stored, info.size(), "partition " + part + ": its segments' bytes");
                assertEquals(0, info.offsetLag());
                assertFalse(info.isFuture());
            }
            assertTrue(dir.replicaInfos().get(new TopicPartition("sized", 0)).size() > 0);
            assertEquals(0, dir.replicaInfos().get(new TopicPartition("sized", 2)).size(), "never written");
        }
        KafkaTool.Run run = KafkaTool.run(LogDirsCommand::main, "--bootstrap-server", bootstrap(), "--describe",
                "--topic-list", "sized");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("\"logDir\":\"postgresql\""), run.toString());
        assertTrue(run.out().contains("{\"partition\":\"sized-2\",\"size\":0,\"offsetLag\":0,\"isFuture\":false}"),
                run.toString());
    }

    @Test
    void describeProducersListsTheOpenTransactionsProducers() throws Exception {
        createTopic("described", 2);
        TopicPartition tp = new TopicPartition("described", 1);
        try (KafkaProducer<String, String> p = producer("describer"); Admin a = admin()) {
            p.initTransactions();
            p.beginTransaction();
            for (int i = 0; i < 3; i++) {
                p.send(new ProducerRecord<>("described", 1, "k", "v" + i));
            }
            p.flush();
            List<ProducerState> active = a.describeProducers(List.of(tp)).partitionResult(tp)
                    .get(30, TimeUnit.SECONDS).activeProducers();
            assertEquals(1, active.size(), active.toString());
            ProducerState s = active.get(0);
            assertEquals(0, s.producerEpoch());
            assertEquals(2, s.lastSequence(), "three records staged: sequences 0..2");
            assertTrue(s.lastTimestamp() > 0);
            assertTrue(s.coordinatorEpoch().isEmpty());
            assertTrue(s.currentTransactionStartOffset().isEmpty());
            assertTrue(a.describeProducers(List.of(new TopicPartition("described", 0))).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next().activeProducers().isEmpty(),
                    "a partition the transaction did not touch");

            KafkaTool.Run run = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bootstrap(),
                    "describe-producers", "--topic", "described", "--partition", "1");
            assertEquals(0, run.exit(), run.toString());
            assertTrue(run.out().contains("ProducerId"), run.toString());
            assertTrue(run.out().contains(Long.toString(s.producerId())), run.toString());
            // an open transaction has no start offset in the log, so find-hanging finds none to report
            KafkaTool.Run hanging = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bootstrap(),
                    "find-hanging", "--broker-id", Integer.toString(cluster.nodeId()));
            assertEquals(0, hanging.exit(), hanging.toString());
            assertFalse(hanging.out().contains(Long.toString(s.producerId())), hanging.toString());

            p.commitTransaction();
            assertTrue(a.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .activeProducers().isEmpty(), "none after the commit");
        }
        // the admin client retries UNKNOWN_TOPIC_OR_PARTITION until its timeout: the broker's own answer
        try (Socket s = KafkaFrames.connect(listener.port())) {
            DescribeProducersRequestData ask = new DescribeProducersRequestData();
            ask.topics().add(new DescribeProducersRequestData.TopicRequest().setName("described")
                    .setPartitionIndexes(List.of(1, 7)));
            ask.topics().add(new DescribeProducersRequestData.TopicRequest().setName("no-such-topic")
                    .setPartitionIndexes(List.of(0)));
            DescribeProducersResponseData r = KafkaFrames.call(s, ApiKeys.DESCRIBE_PRODUCERS, (short) 0, 1, ask);
            List<Short> errors = r.topics().stream().flatMap(t -> t.partitions().stream())
                    .map(DescribeProducersResponseData.PartitionResponse::errorCode).toList();
            short unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
            assertEquals(List.of(Errors.NONE.code(), unknown, unknown), errors);
        }
    }

    /** A tool's table with each run of blanks made one space, so rows compare whatever the column widths. */
    static String table(KafkaTool.Run run) {
        return run.out().replaceAll("[ \\t]+", " ");
    }

    @Test
    void consumerGroupsToolDescribesAndResetsAClassicGroup() throws Exception {
        createTopic("grouped", 2);
        try (KafkaProducer<String, String> p = producer(null)) {
            for (int i = 0; i < 10; i++) {
                p.send(new ProducerRecord<>("grouped", i % 2, "k" + i, "v" + i));
            }
            p.flush();
        }
        String bootstrap = bootstrap();
        String[] describe = {"--bootstrap-server", bootstrap, "--describe", "--group", "tooled"};
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProperties(bootstrap, "tooled"),
                new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of("grouped"));
            int read = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read < 10 && System.nanoTime() < deadline) {
                read += c.poll(Duration.ofMillis(300)).count();
            }
            assertEquals(10, read);
            c.commitSync();
            KafkaTool.Run active = KafkaTool.run(ConsumerGroupCommand::main, describe);
            assertEquals(0, active.exit(), active.toString());
            for (int part = 0; part < 2; part++) {
                assertTrue(table(active).contains("tooled grouped " + part + " 5 5 0 consumer-tooled-"),
                        active.toString());
            }
        }
        KafkaTool.Run empty = KafkaTool.run(ConsumerGroupCommand::main, describe);
        assertEquals(0, empty.exit(), empty.toString());
        assertTrue(empty.err().contains("Consumer group 'tooled' has no active members."), empty.toString());
        assertTrue(table(empty).contains("tooled grouped 0 5 5 0 - - -"), empty.toString());

        KafkaTool.Run reset = KafkaTool.run(ConsumerGroupCommand::main, "--bootstrap-server", bootstrap,
                "--reset-offsets", "--to-earliest", "--execute", "--group", "tooled", "--topic", "grouped");
        assertEquals(0, reset.exit(), reset.toString());
        assertTrue(table(reset).contains("tooled grouped 0 0"), reset.toString());
        assertTrue(table(reset).contains("tooled grouped 1 0"), reset.toString());
        try (Admin a = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = a.listConsumerGroupOffsets("tooled")
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertEquals(Map.of(new TopicPartition("grouped", 0), 0L, new TopicPartition("grouped", 1), 0L),
                    offsets.entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey,
                            e -> e.getValue().offset())));
        }
    }
}
