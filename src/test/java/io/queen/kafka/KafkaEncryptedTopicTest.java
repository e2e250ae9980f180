package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A Kafka record produced to a queue with {@code encryptionEnabled}: ciphertext at rest (the record's binary form
 * encrypted), the bytes back to a Kafka consumer, its JSON envelope to HTTP readers, and a dead letter that is the
 * envelope encrypted.
 */
@QuarkusTest
@TestProfile(KafkaEncrypted.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaEncryptedTopicTest extends KafkaListenerClients {

    @Inject
    AgroalDataSource ds;

    @Test
    void aRecordIsCiphertextAtRestAndReadBackByKafkaAndHttp() throws Exception {
        Api.configure("k-enc", "{\"encryptionEnabled\":true,\"retryLimit\":0}");
        byte[] value = "s3cret-value".getBytes(StandardCharsets.UTF_8);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            p.send(new ProducerRecord<>("k-enc", 0, "k".getBytes(StandardCharsets.UTF_8), value)).get();
        }
        byte[] blob = (byte[]) Sql.rows(ds, "SELECT s.blob FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'k-enc'")
                .get(0).get(0);
        Frame stored = SegmentCodec.decode(blob).get(0);
        assertTrue(stored.kafkaRecord() && stored.encrypted(), stored.toString());
        assertFalse(new String(stored.payload(), StandardCharsets.ISO_8859_1).contains("s3cret"), "ciphertext at rest");

        assertEquals(List.of("s3cret-value"), ReadToEnd.values(bootstrap(), "read_uncommitted",
                ReadToEnd.partitions(1, "k-enc")), "a Kafka consumer reads the bytes produced");

        JsonNode popped = Api.pop("/api/v1/pop/queue/k-enc/partition/0?batch=1");
        JsonNode data = Api.messages(popped).get(0).get("data");
        assertEquals("s3cret-value", data.get("value").asText());
        assertEquals("k", data.get("kafka").get("key").asText());
        Api.ackAll(popped, "failed", null);
        String snapshot = Sql.one(ds, "SELECT d.payload::text FROM queen.log_dlq d JOIN queen.log_partitions p"
                + " ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'k-enc'");
        assertFalse(snapshot.contains("s3cret"), "the dead letter is ciphertext: " + snapshot);
        JsonNode dead = Api.json(Http.get("/api/v1/dlq?queue=k-enc").body()).get("messages").get(0);
        assertEquals(data, dead.get("data"));
    }
}
