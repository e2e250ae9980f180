package io.queen.crypto;

import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.pop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.queen.testing.EncryptionKey;
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
import org.junit.jupiter.api.Test;

/** encryptionEnabled queues: ciphertext at rest (frame flag 4), plaintext on every read. */
@QuarkusTest
@TestProfile(EncryptionKey.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class EncryptionTest {

    @Inject
    AgroalDataSource ds;

    List<Frame> frames(String queue) {
        return SegmentCodec.decode((byte[]) Sql.rows(ds, "SELECT s.blob FROM queen.log_segments s JOIN queen.log_partitions p"
                + " ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + queue
                + "' ORDER BY s.base_offset LIMIT 1").get(0).get(0));
    }

    @Test
    void encryptedAtRestPlainOnRead() {
        configure("enc", "{\"encryptionEnabled\":true}");
        String payload = "{\"secret\":\"s3cret-value\",\"n\":[1,2]}";
        assertEquals(201, Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"enc\",\"transactionId\":\"e1\",\"payload\":"
                + payload + "}]}").status());
        Frame f = frames("enc").get(0);
        assertTrue(f.encrypted(), "frame flag 4");
        String stored = new String(f.payload(), StandardCharsets.UTF_8);
        assertFalse(stored.contains("s3cret"), stored);
        assertTrue(stored.contains("\"authTag\""), stored);

        JsonNode p = pop("/api/v1/pop/queue/enc/partition/Default");
        assertEquals("s3cret-value", p.get("messages").get(0).get("data").get("secret").asText());
        assertEquals(2, p.get("messages").get(0).get("data").get("n").get(1).asInt());

        // a plain queue stays plain
        assertEquals(201, Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"plain\",\"payload\":" + payload + "}]}").status());
        assertFalse(frames("plain").get(0).encrypted());
        assertEquals(payload, new String(frames("plain").get(0).payload(), StandardCharsets.UTF_8));

        // the transaction wire encrypts too
        JsonNode tx = io.queen.testing.Api.json(Http.post("/api/v1/transaction", "{\"operations\":[{\"type\":\"push\","
                + "\"items\":[{\"queue\":\"enc\",\"partition\":\"T\",\"payload\":{\"secret\":\"tx-secret\"}}]}]}").body());
        assertTrue(tx.get("success").asBoolean(), tx.toString());
        assertEquals(1, Sql.count(ds, "SELECT count(*) FROM queen.log_partitions WHERE name = 'T'"));
        JsonNode p2 = pop("/api/v1/pop/queue/enc/partition/T");
        assertEquals("tx-secret", p2.get("messages").get(0).get("data").get("secret").asText());
    }

    @Test
    void aDeadLetterOfAnEncryptedQueueKeepsTheEnvelope() {
        configure("enc-dlq", "{\"encryptionEnabled\":true,\"retryLimit\":0}");
        assertEquals(201, Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"enc-dlq\",\"transactionId\":\"d1\","
                + "\"payload\":{\"secret\":\"dlq-secret\"}}]}").status());
        JsonNode m = pop("/api/v1/pop/queue/enc-dlq/partition/Default").get("messages").get(0);
        JsonNode r = io.queen.testing.Api.ack("d1", m.get("partitionId").asText(), m.get("leaseId").asText(), "failed",
                null, "x");
        assertTrue(r.get("dlq").asBoolean());
        String stored = Sql.one(ds, "SELECT payload::text FROM queen.log_dlq WHERE transaction_id = 'd1'");
        assertFalse(stored.contains("dlq-secret"), stored);
        assertTrue(stored.contains("authTag"), stored);

        // every read shows plaintext: DLQ browse, message by address, fetch, and a replayed message's pop
        JsonNode dlq = io.queen.testing.Api.json(Http.get("/api/v1/dlq?queue=enc-dlq").body());
        assertEquals("dlq-secret", dlq.get("messages").get(0).get("data").get("secret").asText(), dlq.toString());
        String pid = m.get("partitionId").asText();
        JsonNode one = io.queen.testing.Api.json(Http.get("/api/v1/messages/" + pid + "/d1").body());
        assertEquals("dlq-secret", one.get("data").get("secret").asText(), one.toString());
        JsonNode fetched = io.queen.testing.Api.json(Http.post("/api/v1/fetch",
                "{\"entries\":[{\"queue\":\"enc-dlq\",\"offset\":0}]}").body());
        assertEquals("dlq-secret", fetched.get("entries").get(0).path("records").get(0).get("payload").get("secret").asText(),
                fetched.toString());
        String id = dlq.get("messages").get(0).get("id").asText();
        Http.Reply replay = Http.post("/api/v1/dlq/" + id + "/replay", "");
        assertEquals(200, replay.status(), replay.body());
        JsonNode again = pop("/api/v1/pop/queue/enc-dlq/partition/Default");
        assertEquals("dlq-secret", again.get("messages").get(0).get("data").get("secret").asText());
    }
}
