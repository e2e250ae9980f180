package io.queen.kafka.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Writes response frames with the kafka-clients message classes: a 4-byte size, the response header in the version
 * the request's API and version call for, then the body. The record sets a body carries (a Fetch's batches) are not
 * copied into the frame: {@link SendBuilder} lays the frame out as the bytes around them plus the record buffers
 * themselves, and the frame is those parts in order, as Apache Kafka sends it. Stateless, thread-safe.
 */
final class KafkaWire {
    private KafkaWire() {}

    /**
     * A whole response frame (size prefix included): its parts, in order, as views of the buffers they are in (the
     * record sets of {@code body} are not copied, so they must not change until the frame is written).
     */
    static ByteBuf response(int correlationId, short headerVersion, ApiMessage body, short version) {
        Send send = SendBuilder.buildResponseSend(new ResponseHeader(correlationId, headerVersion), body, version);
        Parts parts = new Parts();
        try {
            while (!send.completed()) {
                send.writeTo(parts);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Parts does no I/O", e);
        }
        return Unpooled.wrappedBuffer(parts.views.toArray(new ByteBuffer[0]));
    }

    /** The buffers a {@link Send} writes, taken as views instead of being written anywhere. */
    private static final class Parts implements TransferableChannel {
        final List<ByteBuffer> views = new ArrayList<>(4);

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            if (n > 0) {
                views.add(src.slice());
                src.position(src.limit());
            }
            return n;
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) {
            // only file-backed record sets are sent this way, and no answer carries one
            throw new UnsupportedOperationException("file-backed records");
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /**
     * What Apache Kafka answers an ApiVersions request of a version it does not know, and what this listener
     * answers any request whose API key it does not know: ApiVersions v0 (header v0) with UNSUPPORTED_VERSION and
     * the ranges served, so the client can pick a version it shares.
     */
    static ByteBuf unsupportedVersion(int correlationId, KafkaApis apis) {
        ApiVersionsResponseData body = new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(apis.versions());
        return response(correlationId, (short) 0, body, (short) 0);
    }
}
