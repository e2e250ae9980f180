package io.queen.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.transport.KafkaListener;
import io.queen.kafka.group.GroupConsumer;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The console with the Kafka listener on: a topic written by the Java producer is a queue with its messages, and a
 * group of the Java consumer (classic protocol) is a consumer group with its committed offsets and lag and, on the
 * group page, its Kafka member (client id, host, assigned partitions, since when) from the coordinator. Each figure
 * is checked against the HTTP API; once the member leaves, the route shows none, and a reset to the earliest offset
 * shows the committed offset Kafka's tools show. A record's key and headers are columns of the message list.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsoleKafkaTest extends ConsoleBrowserTest {
    static final String TOPIC = "k-orders";
    static final String GROUP = "k-billing";
    static final int PARTITIONS = 3;
    static final int PER_PARTITION = 4;

    @Inject
    KafkaListener listener;

    @Inject
    io.queen.compaction.CompactionCycle compactionCycle;

    @Test
    void aTopicItsMessagesAndAKafkaGroupWithLagAndItsMemberShowInTheConsole() throws Exception {
        String bootstrap = "127.0.0.1:" + listener.port();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        }
        GroupConsumer.produce(bootstrap, TOPIC, PARTITIONS, 0, PER_PARTITION);
        GroupConsumer member = new GroupConsumer(bootstrap, "billing-app", GROUP,
                org.apache.kafka.clients.consumer.RangeAssignor.class.getName(), TOPIC,
                new ConcurrentLinkedQueue<>(), null);
        member.start();
        try {
            // every record delivered and committed: the group's lag is 0 on every partition
            await(() -> lag() == 0 && committedEverywhere());

            page("/queues", "queues", "queues-kafka");
            String row = "tr[data-queue='" + TOPIC + "']";
            assertEquals(List.of("3", "12"), browser.cells(row, "partitions", "total"));
            assertEquals("0", browser.text(row + " [data-group='" + GROUP + "'] b"), "the group's lag");

            page("/queues/" + TOPIC + "/messages", "messages", "messages-kafka");
            assertEquals(PARTITIONS * PER_PARTITION, browser.all("#view tr[data-transaction]").size());
            assertEquals(PER_PARTITION, browser.all("#view tr[data-partition='1']").size());
            browser.click("#view tr[data-partition='1'] [data-k='transactionId'] button");
            browser.waitFor("#record-detail tr[data-group='" + GROUP + "']");
            assertEquals("acked", browser.text("#record-detail tr[data-group='" + GROUP + "'] [data-k='status']"),
                    "the group committed past every record");
            browser.click("#drawer [data-close]");

            page("/groups", "groups", "groups-kafka");
            assertEquals("0", browser.cell("tr[data-group='" + GROUP + "'][data-queue='" + TOPIC + "']", "totalLag"));

            JsonNode kafka = get("/api/v1/consumer-groups/" + GROUP + "/members").get("kafka");
            assertEquals("Stable", kafka.get("state").asText(), kafka.toString());
            JsonNode m = kafka.get("members").get(0);
            assertEquals("billing-app", m.get("clientId").asText());
            assertEquals(PARTITIONS, m.get("assignments").size(), "one member holds every partition: " + m);
            page("/groups/" + GROUP, "group", "group-kafka");
            String mine = "tr[data-kafka-member='" + m.get("memberId").asText() + "']";
            assertEquals(List.of("billing-app", m.get("clientHost").asText(), "k-orders/0, k-orders/1, k-orders/2"),
                    browser.cells(mine, "clientId", "clientHost", "assignments"));
            assertTrue(m.get("clientHost").asText().contains("127.0.0.1"), m.toString());
            assertEquals("Stable", browser.one("#view [data-k='kafka-state']").getDomProperty("textContent"));
            assertTrue(browser.cell(mine, "joinedAt").startsWith(m.get("joinedAt").asText().substring(0, 10)));
            String p1 = "section[data-queue='" + TOPIC + "'] tr[data-partition='1']";
            assertEquals(List.of(String.valueOf(PER_PARTITION), "0"),
                    browser.cells(p1, "committedOffset", "offsetLag"), "Kafka's committed offset 4, as its tools say");
            browser.size(390, 844);
            try {
                page("/groups/" + GROUP, "group", "phone-group-kafka");
                browser.assertFitsWidth("/groups/" + GROUP);
            } finally {
                browser.size(1366, 900);
            }
        } finally {
            member.closeWith = CloseOptions.GroupMembershipOperation.LEAVE_GROUP;
            member.join(30_000);
        }
        assertNull(member.failure);
        JsonNode left = get("/api/v1/consumer-groups/" + GROUP + "/members").get("kafka");
        assertTrue(left.isNull() || left.get("members").isEmpty(), "no member after it left: " + left);

        // reset to the earliest offset the way Kafka's tools do it: the console shows what they show
        try (Admin admin = Admin.create(p)) {
            admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition(TOPIC, 1), new OffsetAndMetadata(0)))
                    .all().get(30, TimeUnit.SECONDS);
            long kafkaSays = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(new TopicPartition(TOPIC, 1)).offset();
            assertEquals(0, kafkaSays);
            page("/groups/" + GROUP, "group", "group-kafka-reset");
            String p1 = "section[data-queue='" + TOPIC + "'] tr[data-partition='1']";
            assertEquals(List.of(String.valueOf(kafkaSays), String.valueOf(PER_PARTITION)),
                    browser.cells(p1, "committedOffset", "offsetLag"), "committed 0, as Kafka's tools say, not -1");
        }
    }

    @Test
    void aKafkaRecordsKeyAndHeadersAreColumnsOfTheMessageList() throws Exception {
        String bootstrap = "127.0.0.1:" + listener.port();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            ProducerRecord<String, String> keyed = new ProducerRecord<>("k-keys", 0, "order-7", "{\"n\":1}");
            keyed.headers().add("source", "web".getBytes(StandardCharsets.UTF_8));
            keyed.headers().add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
            producer.send(keyed).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("k-keys", 0, null, "plain")).get(30, TimeUnit.SECONDS);
        }
        page("/queues/k-keys/messages", "messages", "messages-kafka-keys");
        List<org.openqa.selenium.WebElement> rows = browser.all("#view tbody tr[data-transaction]");
        assertEquals(2, rows.size());
        String first = "#view tbody tr[data-transaction='" + rows.get(1).getDomAttribute("data-transaction") + "']";
        String second = "#view tbody tr[data-transaction='" + rows.get(0).getDomAttribute("data-transaction") + "']";
        assertEquals(List.of("order-7", "source=web, trace=t-1"), browser.cells(first, "kafkaKey", "kafkaHeaders"),
                "the older record, with its key and headers");
        assertEquals(List.of("–", "–"), browser.cells(second, "kafkaKey", "kafkaHeaders"), "no key, no header");
        JsonNode listed = get("/api/v1/messages?queue=k-keys").get("messages");
        assertEquals("order-7", listed.get(1).get("kafka").get("key").asText(), listed.toString());
    }

    @Test
    void aCompactedTopicShowsItsPolicyAndWhatCompactionRemoved() throws Exception {
        String topic = "k-compacted";
        String bootstrap = "127.0.0.1:" + listener.port();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("cleanup.policy", "compact",
                    "min.cleanable.dirty.ratio", "0.25")), new NewTopic("k-plain", 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int u = 0; u < 3; u++) {
                for (String k : List.of("a", "b")) {
                    producer.send(new ProducerRecord<>(topic, 0, k, k + u)).get(30, TimeUnit.SECONDS);
                }
            }
            producer.send(new ProducerRecord<>(topic, 0, "head", "h")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("k-plain", 0, "a", "a")).get(30, TimeUnit.SECONDS);
        }
        // before any pass: the policy shows, nothing removed yet
        page("/queues/" + topic, "queue", "queue-compacted-before");
        assertEquals("compact", browser.text("#view [data-k='cleanupPolicy']"));
        assertEquals("0", browser.text("#view [data-k='compactionRecordsRemoved']"));
        assertEquals(List.of("–", "1.00 (due)"), browser.cells("tr[data-partition='0']", "cleanedTo", "dirtyRatio"),
                "six records past no compaction point, the head not counted");

        assertEquals(1, compactionCycle.runOnce(java.time.Instant.now().plusSeconds(1)).passes().stream()
                .filter(c -> c.queue().equals(topic)).count());
        JsonNode q = get("/api/v1/resources/queues/" + topic);
        assertEquals(4, q.get("compaction").get("recordsRemoved").asLong(), q.toString());
        assertEquals(0.25, q.get("compaction").get("minCleanableDirtyRatio").asDouble(), q.toString());
        JsonNode part = q.get("partitions").get(0).get("compaction");
        assertEquals(List.of(5L, 2L, 4L), List.of(part.get("cleanedTo").asLong(), part.get("keptRecords").asLong(),
                part.get("recordsRemoved").asLong()), part.toString());
        assertEquals(0.0, part.get("dirtyRatio").asDouble(), part.toString());
        assertFalse(part.get("due").asBoolean(), part.toString());
        page("/queues/" + topic, "queue", "queue-compacted");
        assertEquals("4", browser.text("#view [data-k='compactionRecordsRemoved']"));
        assertEquals(List.of("5", "4", "0.00"), browser.cells("tr[data-partition='0']", "cleanedTo", "recordsRemoved",
                "dirtyRatio"));
        assertEquals("0.25", browser.text("#view [data-k='minCleanableDirtyRatio']"));

        // a queue with the delete policy shows no compaction
        page("/queues/k-plain", "queue", "queue-not-compacted");
        assertTrue(browser.all("#view [data-k='cleanupPolicy']").isEmpty());
        JsonNode plain = get("/api/v1/resources/queues/k-plain");
        assertEquals("delete", plain.get("compaction").get("cleanupPolicy").asText(), plain.toString());
        assertTrue(plain.get("partitions").get(0).get("compaction").isNull(), plain.toString());
    }

    private static long lag() {
        long lag = 0;
        for (JsonNode part : get("/api/v1/consumer-groups/" + GROUP).path(TOPIC).path("partitions")) {
            lag += part.get("offsetLag").asLong();
        }
        return lag;
    }

    private static boolean committedEverywhere() {
        return get("/api/v1/consumer-groups/" + GROUP).path(TOPIC).path("partitions").size() == PARTITIONS;
    }

    private static void await(java.util.function.BooleanSupplier met) throws Exception {
        Await.until("the consumer commits every record", met::getAsBoolean, Duration.ofSeconds(60));
    }
}
