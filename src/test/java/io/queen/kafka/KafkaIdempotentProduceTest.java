package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import jakarta.inject.Inject;
import java.net.Socket;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * An idempotent producer's retried batches over a raw socket, as a producer resends them after a lost answer: a
 * retry writes nothing and is answered with the offset its first attempt got, whether it repeats the newest batch
 * or an older one, and an HTTP push carrying the id a Kafka record got ({@code kafka:<producer>:<epoch>:<sequence>})
 * is deduplicated against it both ways. The broker's dedup index keeps such records as sequence ranges per producer
 * rather than one hash each; these are the cases where a wrong range would write a duplicate.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaIdempotentProduceTest {
    static final long PRODUCER = 424_242;

    @Inject
    KafkaListener listener;

    static MemoryRecords batch(long producerId, int epoch, int baseSequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(("v" + (baseSequence + i)).getBytes());
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, (short) epoch, baseSequence, records);
    }

    /** The base offset the only partition of the answer got; fails on an error. */
    static long produce(Socket s, int correlationId, String topic, MemoryRecords records) throws Exception {
        ProduceResponseData answer = KafkaHostileProduceTest.call(s, correlationId,
                KafkaHostileProduceTest.produce(topic, records));
        ProduceResponseData.PartitionProduceResponse p = answer.responses().iterator().next().partitionResponses()
                .get(0);
        assertEquals(Errors.NONE, Errors.forCode(p.errorCode()), p.errorMessage());
        return p.baseOffset();
    }

    static String pushStatus(String queue, String transactionId) {
        Http.Reply r = Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"" + queue
                + "\",\"partition\":\"0\",\"transactionId\":\"" + transactionId + "\",\"payload\":{\"via\":\"http\"}}]}");
        assertEquals(201, r.status(), r.body());
        JsonNode item = Api.json(r.body()).get(0);
        return item.get("status").asText();
    }

    @Test
    void retriedBatchesWriteNothingAndAreAnsweredWithTheirFirstOffset() throws Exception {
        String topic = "idempotent-retries";
        try (Socket s = KafkaFrames.connect(listener.port())) {
            int c = 1;
            assertEquals(0, produce(s, c++, topic, batch(PRODUCER, 0, 0, 3)));
            assertEquals(0, produce(s, c++, topic, batch(PRODUCER, 0, 0, 3)), "the newest batch retried");
            assertEquals(3, produce(s, c++, topic, batch(PRODUCER, 0, 3, 2)));
            assertEquals(0, produce(s, c++, topic, batch(PRODUCER, 0, 0, 3)), "an older batch retried");
            assertEquals(3, produce(s, c++, topic, batch(PRODUCER, 0, 3, 2)));

            assertEquals("duplicate", pushStatus(topic, "kafka:" + PRODUCER + ":0:4"),
                    "an HTTP push with a Kafka record's id");
            assertEquals("queued", pushStatus(topic, "kafka:" + PRODUCER + ":0:5"));
            assertEquals("queued", pushStatus(topic, "kafka:" + PRODUCER + ":0:06"),
                    "another id than kafka:...:6, though it reads as the same number");
            assertEquals(5, produce(s, c++, topic, batch(PRODUCER, 0, 5, 1)),
                    "a record whose id an HTTP push stored first is that message");

            assertEquals(7, produce(s, c++, topic, batch(PRODUCER, 0, 6, 2)), "offsets 0-6 hold 7 messages");
            assertEquals(9, produce(s, c++, topic, batch(PRODUCER + 1, 0, 0, 1)), "another producer's sequence 0");
            assertEquals(10, produce(s, c++, topic, batch(PRODUCER, 1, 0, 1)), "a new epoch's sequence 0");
            assertEquals(9, produce(s, c++, topic, batch(PRODUCER + 1, 0, 0, 1)));
            assertEquals(11, produce(s, c++, topic, batch(PRODUCER, 0, 8, 1)), "nothing was written twice");
        }
    }
}
