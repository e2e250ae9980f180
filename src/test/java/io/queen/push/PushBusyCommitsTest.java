package io.queen.push;

import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.kafka.KafkaEnabled;
import io.queen.kafka.KafkaListenerClients;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A busy broker (queen.push.busy-commits) lets the partitions a Kafka producer writes wait for their shard's commit
 * in flight and share the next commit, while an HTTP push, whose caller sends nothing more until answered, never
 * waits. Busy from one commit, one shard, and a hold limit that never passes here, so what waits is decided by a
 * row lock the test holds, not by timing.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.push.busy-commits", value = "1"),
        @ResourceArg(name = "queen.push.fusion-shards", value = "1"),
        @ResourceArg(name = "queen.push.commit-hold-ms", value = "600000")})
class PushBusyCommitsTest extends KafkaListenerClients {
    static final String TOPIC = "slots";

    @Inject
    AgroalDataSource ds;

    @Test
    void kafkaPartitionsReadyWhileTheBrokerIsBusyShareTheNextCommitAndHttpPushesDoNotWait() throws Exception {
        createTopicsAt(bootstrap(), new NewTopic(TOPIC, 10, (short) 1));
        pushN(TOPIC, "0", "w", 0, 1);
        double commits = metric("queen_push_commits_total");
        double segments = metric("queen_push_segments_total");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<JsonNode> stalled;
        List<Future<RecordMetadata>> waiting = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer();
                Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SELECT 1 FROM queen.log_partitions lp JOIN queen.queues q ON q.id = lp.queue_id"
                    + " WHERE q.name = '" + TOPIC + "' AND lp.name = '0' FOR UPDATE OF lp");
            stalled = pool.submit(() -> pushN(TOPIC, "0", "w", 1, 1));
            Await.until("the push to partition 0 waits on its row", () -> Sql.count(ds,
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND wait_event_type = 'Lock' AND query LIKE '%log_push_multi_v1%'") == 1,
                    Duration.ofSeconds(60));
            // an HTTP push to another partition of the busy shard commits beside the stalled one
            Future<JsonNode> http = pool.submit(() -> pushN(TOPIC, "9", "w", 0, 3));
            for (JsonNode item : http.get(60, TimeUnit.SECONDS)) {
                assertEquals("queued", item.path("status").asText(), item.toString());
            }
            for (int p = 1; p <= 8; p++) {
                waiting.add(producer.send(new ProducerRecord<>(TOPIC, p, "k", "v" + p)));
            }
            Await.until("8 partitions wait for the commit in flight", () -> metric("queen_push_partitions_ready") == 8,
                    Duration.ofSeconds(60));
            for (Future<RecordMetadata> f : waiting) {
                assertFalse(f.isDone(), "a Kafka write waits while the broker is busy");
            }
            c.rollback();
            assertEquals("queued", stalled.get(60, TimeUnit.SECONDS).get(0).path("status").asText());
            for (Future<RecordMetadata> f : waiting) {
                assertTrue(f.get(60, TimeUnit.SECONDS).offset() >= 0);
            }
        } finally {
            pool.shutdown();
        }
        assertEquals(10, metric("queen_push_segments_total") - segments, "segments");
        assertEquals(3, metric("queen_push_commits_total") - commits,
                "partition 0's commit, the HTTP push's, then one for the 8 waiting");
        assertEquals(0, metric("queen_push_partitions_ready"));
        assertEquals(0, metric("queen_push_commits_overdue_total"));
    }

    private KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 90_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }
}
