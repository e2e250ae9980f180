package io.queen.kafka.transport;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Writes response frames with the kafka-clients message classes: a 4-byte size, the response header in the version
 * the request's API and version call for, then the body. Stateless, thread-safe.
 */
final class KafkaWire {
    private KafkaWire() {}

    /** A whole response frame (size prefix included). */
    static ByteBuffer response(int correlationId, short headerVersion, ApiMessage body, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + headerSize + bodySize);
        buf.putInt(headerSize + bodySize);
        ByteBufferAccessor out = new ByteBufferAccessor(buf);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        buf.flip();
        return buf;
    }

    /**
     * What Apache Kafka answers an ApiVersions request of a version it does not know, and what this listener
     * answers any request whose API key it does not know: ApiVersions v0 (header v0) with UNSUPPORTED_VERSION and
     * the ranges served, so the client can pick a version it shares.
     */
    static ByteBuffer unsupportedVersion(int correlationId, KafkaApis apis) {
        ApiVersionsResponseData body = new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(apis.versions());
        return response(correlationId, (short) 0, body, (short) 0);
    }
}
