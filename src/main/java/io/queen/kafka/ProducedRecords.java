package io.queen.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Reads the records of one Produce request's record batches within limits on what they hold once decompressed,
 * per batch and for the whole request (bytes and records). The size limit on a batch as sent
 * ({@code QUEEN_KAFKA_MAX_BATCH_BYTES}) says nothing about its decompressed size: a 65 KB gzip batch can inflate to
 * gigabytes. The record count a batch declares is checked before anything is decompressed, and decompression
 * stops at the first byte beyond the bytes left, so a refused batch costs at most the limit in memory (the
 * kafka-clients iterator would allocate whatever size a record declares). Not thread-safe: one per request.
 */
final class ProducedRecords {
    /** A batch refused: its partition is answered {@link #error}; the request's other partitions go on. */
    static final class Refused extends Exception {
        final Errors error;

        Refused(Errors error, String message) {
            super(message, null, false, false);
            this.error = error;
        }
    }

    private final long maxBatchBytes;
    private final int maxBatchRecords;
    private long bytesLeft;
    private long recordsLeft;

    ProducedRecords(long maxBatchBytes, long maxRequestBytes, int maxBatchRecords, int maxRequestRecords) {
        this.maxBatchBytes = maxBatchBytes;
        this.maxBatchRecords = maxBatchRecords;
        this.bytesLeft = maxRequestBytes;
        this.recordsLeft = maxRequestRecords;
    }

    /**
     * The records of {@code batch}, whose bytes (header included) are {@code bytes}; charged against what the
     * request has left. A batch must already have passed its CRC check.
     */
    List<Record> read(RecordBatch batch, ByteBuffer bytes) throws Refused {
        Integer declared = batch.countOrNull();
        int count = declared == null ? -1 : declared;
        if (count < 0) {
            throw new Refused(Errors.CORRUPT_MESSAGE, "a record batch declares a negative record count");
        }
        if (count > maxBatchRecords) {
            throw new Refused(Errors.MESSAGE_TOO_LARGE, "a record batch of " + count + " records is over the "
                    + maxBatchRecords + " a batch may hold (QUEEN_KAFKA_MAX_BATCH_RECORDS)");
        }
        if (count > recordsLeft) {
            throw new Refused(Errors.MESSAGE_TOO_LARGE, "the request's record batches hold more records than a"
                    + " produce may (QUEEN_KAFKA_MAX_REQUEST_RECORDS)");
        }
        ByteBuffer body = bytes.duplicate().position(DefaultRecordBatch.RECORD_BATCH_OVERHEAD).slice();
        long limit = Math.min(maxBatchBytes, bytesLeft);
        if (batch.compressionType() != CompressionType.NONE) {
            body = decompress(batch, body, limit);
        } else if (body.remaining() > limit) {
            throw tooLarge(body.remaining() > maxBatchBytes);
        }
        bytesLeft -= body.remaining();
        recordsLeft -= count;
        // a v2 batch (the only magic accepted, checked before): its records' timestamps are deltas from this
        long baseTimestamp = ((DefaultRecordBatch) batch).baseTimestamp();
        Long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : null;
        List<Record> out = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                out.add(DefaultRecord.readFrom(body, batch.baseOffset(), baseTimestamp,
                        batch.baseSequence(), logAppendTime));
            }
        } catch (RuntimeException e) {
            // InvalidRecordException, BufferUnderflowException: fewer or shorter records than declared
            throw new Refused(Errors.CORRUPT_MESSAGE, "a record batch holds fewer records than it declares");
        }
        if (body.hasRemaining()) {
            throw new Refused(Errors.CORRUPT_MESSAGE, "a record batch holds more bytes than its records");
        }
        return out;
    }

    /** The records part of a compressed batch, decompressed: at most {@code limit} bytes or refused. */
    private ByteBuffer decompress(RecordBatch batch, ByteBuffer compressed, long limit) throws Refused {
        byte[] out;
        try (InputStream in = Compression.of(batch.compressionType()).build().wrapForInput(compressed,
                batch.magic(), BufferSupplier.NO_CACHING)) {
            out = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 16, limit + 1));
        } catch (IOException | RuntimeException e) {
            throw new Refused(Errors.CORRUPT_MESSAGE, "a record batch cannot be decompressed ("
                    + batch.compressionType().name + ")");
        }
        if (out.length > limit) {
            throw tooLarge(out.length > maxBatchBytes);
        }
        return ByteBuffer.wrap(out);
    }

    private Refused tooLarge(boolean batchLimit) {
        return batchLimit
                ? new Refused(Errors.MESSAGE_TOO_LARGE, "a record batch holds more than " + maxBatchBytes
                        + " bytes decompressed (QUEEN_KAFKA_MAX_DECOMPRESSED_BATCH_BYTES)")
                : new Refused(Errors.MESSAGE_TOO_LARGE, "the request's record batches hold more bytes decompressed"
                        + " than a produce may (QUEEN_KAFKA_MAX_DECOMPRESSED_REQUEST_BYTES)");
    }
}
