package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;

/** Raw Kafka frames for tests that drive the listener over a socket, written with the kafka-clients classes. */
public final class KafkaFrames {
    private KafkaFrames() {
    }

    /** A socket to the listener on {@code port} of this machine; a read that waits 30 s for an answer fails. */
    public static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(30_000);
        return s;
    }

    /** A whole request frame (size prefix included). */
    public static byte[] request(ApiKeys key, short version, int correlationId, ApiMessage body) {
        return request(key, version, correlationId, "framing-test", body);
    }

    /** A whole request frame (size prefix included) whose header names {@code clientId}. */
    public static byte[] request(ApiKeys key, short version, int correlationId, String clientId, ApiMessage body) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        short hv = key.requestHeaderVersion(version);
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId(clientId);
        int size = header.size(cache, hv) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + size).putInt(size);
        ByteBufferAccessor out = new ByteBufferAccessor(buf);
        header.write(out, cache, hv);
        body.write(out, cache, version);
        return buf.array();
    }

    /** Sends one request on {@code s} and reads its answer, parsed as {@code key}'s response of {@code version}. */
    public static <R extends ApiMessage> R call(Socket s, ApiKeys key, short version, int correlationId,
            ApiMessage body) throws IOException {
        return call(s, key, version, correlationId, "framing-test", body);
    }

    /** {@link #call} with {@code clientId} in the request header. */
    @SuppressWarnings("unchecked")
    public static <R extends ApiMessage> R call(Socket s, ApiKeys key, short version, int correlationId,
            String clientId, ApiMessage body) throws IOException {
        s.getOutputStream().write(request(key, version, correlationId, clientId, body));
        ByteBuffer rb = response(new DataInputStream(s.getInputStream()), correlationId,
                key.responseHeaderVersion(version));
        return (R) AbstractResponse.parseResponse(key, new ByteBufferAccessor(rb), version).data();
    }

    /** One response frame: its correlation id checked, the body positioned after the header. */
    public static ByteBuffer response(DataInputStream in, int correlationId, short headerVersion) throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer buf = ByteBuffer.wrap(frame);
        ResponseHeaderData header = new ResponseHeaderData(new ByteBufferAccessor(buf), headerVersion);
        assertEquals(correlationId, header.correlationId());
        return buf;
    }
}
