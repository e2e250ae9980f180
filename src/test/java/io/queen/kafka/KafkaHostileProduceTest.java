package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.Crc32C;
import org.junit.jupiter.api.Test;

/**
 * Produce requests an attacker would send, over a raw socket: a compressed batch that inflates far beyond its
 * size as sent (a decompression bomb), record counts and decompressed totals beyond the limits, a batch that does
 * not decompress or declares more records than it holds, a partition without records, and connections that send
 * nothing or half a request. Each is answered with Kafka's error code for its partition (or the connection is
 * closed), the request's other partitions are written, and the connection goes on.
 */
@QuarkusTest
@TestProfile(KafkaHostileProduceTest.Limits.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaHostileProduceTest {
    public static class Limits extends KafkaEnabled {
        public Limits() {
            super("queen.kafka.max-decompressed-batch-bytes", "1M", "queen.kafka.max-decompressed-request-bytes",
                    "1536K", "queen.kafka.max-batch-records", "1000", "queen.kafka.max-request-records", "1500",
                    "queen.kafka.read-timeout-ms", "3000", "queen.kafka.max-inflight-per-connection", "1");
        }
    }

    static final short PRODUCE_VERSION = 9;

    @Inject
    KafkaListener listener;

    Socket connect() throws IOException {
        return KafkaFrames.connect(listener.port());
    }

    static SimpleRecord[] records(int count, int valueBytes) {
        SimpleRecord[] out = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            out[i] = new SimpleRecord(("k" + i).getBytes(), new byte[valueBytes]);
        }
        return out;
    }

    static ProduceRequestData produce(String topic, MemoryRecords... perPartition) {
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(topic);
        for (int p = 0; p < perPartition.length; p++) {
            td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p)
                    .setRecords(perPartition[p]));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(td);
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    /** The error of each partition of the answer's only topic, in partition order. */
    static List<Errors> errors(ProduceResponseData answer) {
        List<Errors> out = new ArrayList<>();
        for (ProduceResponseData.PartitionProduceResponse p : answer.responses().iterator().next()
                .partitionResponses()) {
            out.add(Errors.forCode(p.errorCode()));
        }
        return out;
    }

    static ProduceResponseData call(Socket s, int correlationId, ProduceRequestData request) throws IOException {
        return KafkaFrames.call(s, ApiKeys.PRODUCE, PRODUCE_VERSION, correlationId, request);
    }

    /** The connection still serves: ApiVersions is answered. */
    static void stillServes(Socket s) throws IOException {
        ApiVersionsResponseData v = KafkaFrames.call(s, ApiKeys.API_VERSIONS, (short) 3, 99,
                new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
        assertEquals(Errors.NONE.code(), v.errorCode());
    }

    @Test
    void aCompressedBatchThatInflatesBeyondTheLimitIsRefusedAndTheOthersAreWritten() throws Exception {
        // 32 MiB of zeros: about 32 KB as gzip, well inside the 256 KB batch limit as sent
        MemoryRecords bomb = MemoryRecords.withRecords(Compression.gzip().build(), new SimpleRecord(new byte[32 << 20]));
        assertTrue(bomb.sizeInBytes() < 256 << 10, "the bomb is small as sent: " + bomb.sizeInBytes());
        MemoryRecords fine = MemoryRecords.withRecords(Compression.gzip().build(), records(3, 100));
        try (Socket s = connect()) {
            ProduceResponseData answer = call(s, 1, produce("bomb-topic", fine, bomb));
            assertEquals(List.of(Errors.NONE, Errors.MESSAGE_TOO_LARGE), errors(answer));
            stillServes(s);
        }
    }

    @Test
    void recordCountsBeyondTheBatchOrRequestLimitAreRefused() throws Exception {
        MemoryRecords tooMany = MemoryRecords.withRecords(Compression.NONE, records(1001, 0));
        MemoryRecords first = MemoryRecords.withRecords(Compression.NONE, records(800, 0));
        MemoryRecords second = MemoryRecords.withRecords(Compression.gzip().build(), records(800, 0));
        try (Socket s = connect()) {
            ProduceResponseData answer = call(s, 1, produce("count-topic", tooMany));
            assertEquals(List.of(Errors.MESSAGE_TOO_LARGE), errors(answer));
            // 800 + 800 records: the second batch passes the request's 1500
            answer = call(s, 2, produce("count-topic", first, second));
            assertEquals(List.of(Errors.NONE, Errors.MESSAGE_TOO_LARGE), errors(answer));
            stillServes(s);
        }
    }

    @Test
    void theDecompressedBytesOfARequestAreBoundedToo() throws Exception {
        // two batches of 900 KB each decompressed, under the batch limit (1 MiB), over the request's (1.5 MiB)
        MemoryRecords a = MemoryRecords.withRecords(Compression.gzip().build(), records(9, 100_000));
        MemoryRecords b = MemoryRecords.withRecords(Compression.gzip().build(), records(9, 100_000));
        try (Socket s = connect()) {
            ProduceResponseData answer = call(s, 1, produce("total-topic", a, b));
            assertEquals(List.of(Errors.NONE, Errors.MESSAGE_TOO_LARGE), errors(answer));
        }
    }

    /** {@code records}' only batch with {@code edit} applied and its CRC made right again. */
    static MemoryRecords tampered(MemoryRecords records, java.util.function.Consumer<ByteBuffer> edit) {
        ByteBuffer b = ByteBuffer.allocate(records.sizeInBytes());
        b.put(records.buffer()).flip();
        edit.accept(b);
        long crc = Crc32C.compute(b, DefaultRecordBatch.CRC_OFFSET + 4, b.limit() - DefaultRecordBatch.CRC_OFFSET - 4);
        b.putInt(DefaultRecordBatch.CRC_OFFSET, (int) crc);
        return MemoryRecords.readableRecords(b);
    }

    @Test
    void aBatchThatDoesNotDecompressOrHoldsFewerRecordsThanDeclaredIsCorrupt() throws Exception {
        MemoryRecords gzip = MemoryRecords.withRecords(Compression.gzip().build(), records(5, 50));
        MemoryRecords garbled = tampered(gzip, b -> {
            for (int i = DefaultRecordBatch.RECORD_BATCH_OVERHEAD; i < b.limit(); i++) {
                b.put(i, (byte) 0x5a);
            }
        });
        MemoryRecords overstated = tampered(MemoryRecords.withRecords(Compression.NONE, records(5, 50)),
                b -> b.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, 6));
        try (Socket s = connect()) {
            ProduceResponseData answer = call(s, 1, produce("corrupt-topic", garbled, overstated));
            assertEquals(List.of(Errors.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE), errors(answer));
            stillServes(s);
        }
    }

    @Test
    void aPartitionWithoutRecordsIsAnsweredInvalidRecord() throws Exception {
        ProduceRequestData request = produce("null-topic", (MemoryRecords) null);
        try (Socket s = connect()) {
            ProduceResponseData answer = KafkaFrames.call(s, ApiKeys.PRODUCE, (short) 3, 1, request);
            assertEquals(List.of(Errors.INVALID_RECORD), errors(answer));
            stillServes(s);
        }
    }

    /** Waits for the broker to close {@code s}: EOF within 15 s (the read timeout here is 3 s). */
    static void closedByTheBroker(Socket s) throws IOException {
        s.setSoTimeout(15_000);
        InputStream in = s.getInputStream();
        try {
            assertEquals(-1, in.read(), "the broker wrote something");
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open after 15 s", e);
        } catch (IOException e) {
            // a reset is a close too
        }
    }

    @Test
    void aRequestWhoseRestWaitsWhileReadingIsPausedIsNotCutByTheReadTimeout() throws Exception {
        try (Socket s = connect()) {
            assertEquals(List.of(Errors.NONE), errors(call(s, 1, produce("paused", MemoryRecords.withRecords(
                    Compression.NONE, records(1, 10))))));
            // a Fetch past the end parks 5 s (longer than the 3 s read timeout); with one request in flight per
            // connection, reading pauses behind it, half of the next request already read
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(5000).setMinBytes(1)
                    .setMaxBytes(1 << 20);
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopic("paused").setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(1)
                            .setPartitionMaxBytes(1 << 20))));
            byte[] first = KafkaFrames.request(ApiKeys.FETCH, (short) 12, 2, fetch);
            byte[] second = KafkaFrames.request(ApiKeys.API_VERSIONS, (short) 3, 3,
                    new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
            byte[] both = Arrays.copyOf(first, first.length + second.length - 3);
            System.arraycopy(second, 0, both, first.length, second.length - 3);
            s.getOutputStream().write(both);
            DataInputStream in = new DataInputStream(s.getInputStream());
            // the Fetch is answered after its 5 s: the connection outlived the read timeout with half a request read
            KafkaFrames.response(in, 2, ApiKeys.FETCH.responseHeaderVersion((short) 12));
            s.getOutputStream().write(second, second.length - 3, 3);
            KafkaFrames.response(in, 3, ApiKeys.API_VERSIONS.responseHeaderVersion((short) 3));
            stillServes(s);
        }
    }

    @Test
    void aConnectionThatSendsNothingOrHalfARequestIsClosed() throws Exception {
        byte[] frame = KafkaFrames.request(ApiKeys.API_VERSIONS, (short) 3, 1,
                new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
        try (Socket silent = connect(); Socket half = connect()) {
            half.getOutputStream().write(frame, 0, frame.length - 3);
            closedByTheBroker(silent);
            closedByTheBroker(half);
        }
    }
}
