package io.queen.dlq;

import static io.queen.testing.Api.ack;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.json;
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

/**
 * Encrypted queues through the non-destructive reads and the dead-letter routes: plaintext on every read,
 * ciphertext at rest, also for a replayed dead letter.
 */
@QuarkusTest
@TestProfile(EncryptionKey.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class EncryptedReadTest {

    @Inject
    AgroalDataSource ds;

    @Test
    void readsDecryptAndAReplayedDeadLetterStaysEncryptedAtRest() {
        configure("x-enc", "{\"encryptionEnabled\":true,\"retryLimit\":0}");
        Http.Reply pushed = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"x-enc\",\"transactionId\":\"s-1\","
                + "\"payload\":{\"secret\":\"s3cret\"}},{\"queue\":\"x-enc\",\"transactionId\":\"s-2\",\"payload\":2}]}");
        assertEquals(201, pushed.status(), pushed.body());
        String pid = json(pushed.body()).get(0).get("partition_id").asText();

        JsonNode one = json(Http.get("/api/v1/messages/" + pid + "/s-1").body());
        assertEquals("s3cret", one.get("data").get("secret").asText());
        assertTrue(one.get("isEncrypted").asBoolean());
        JsonNode fetched = json(Http.post("/api/v1/fetch", "{\"entries\":[{\"queue\":\"x-enc\",\"offset\":0}]}").body());
        assertEquals("s3cret", fetched.get("entries").get(0).get("records").get(0).get("payload").get("secret").asText());

        // dead-letter it through the ack path: the snapshot is the envelope, the browse shows plaintext
        JsonNode m = pop("/api/v1/pop/queue/x-enc/partition/Default?batch=1").get("messages").get(0);
        assertTrue(ack("s-1", pid, m.get("leaseId").asText(), "failed", null, "boom").get("dlq").asBoolean());
        String stored = Sql.one(ds, "SELECT payload::text FROM queen.log_dlq");
        assertFalse(stored.contains("s3cret"), "the snapshot is ciphertext: " + stored);
        JsonNode dlq = json(Http.get("/api/v1/dlq?queue=x-enc").body()).get("messages").get(0);
        assertEquals("s3cret", dlq.get("data").get("secret").asText());

        Http.Reply r = Http.post("/api/v1/dlq/" + dlq.get("id").asText() + "/replay", "");
        assertEquals(200, r.status(), r.body());
        List<List<Object>> rows = Sql.rows(ds, "SELECT blob FROM queen.log_segments WHERE partition_id = '" + pid
                + "' ORDER BY base_offset DESC LIMIT 1");
        Frame replayed = SegmentCodec.decode((byte[]) rows.get(0).get(0)).get(0);
        assertTrue(replayed.encrypted(), "flag 4 on the replayed frame");
        assertFalse(new String(replayed.payload(), StandardCharsets.UTF_8).contains("s3cret"));
        List<String> secrets = new java.util.ArrayList<>();
        for (JsonNode x : pop("/api/v1/pop/queue/x-enc/partition/Default?batch=10").get("messages")) {
            secrets.add(x.get("data").toString());
        }
        assertEquals(List.of("2", "{\"secret\":\"s3cret\"}"), secrets, "the consumer gets plaintext back");
    }
}
