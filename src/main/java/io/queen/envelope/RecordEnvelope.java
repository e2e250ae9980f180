package io.queen.envelope;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.segment.Frame;
import io.queen.segment.KafkaTxnId;
import io.queen.tracing.TraceParent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * How a Kafka record is kept as a Queen message (docs/kafka.md#records): the message payload is the JSON document
 * <pre>{"kafka":{"timestamp":T,"key":K,"headers":[{"key":"h","value":V}],"json":true|false},"value":VALUE}</pre>
 * with {@code "kafka"} first and {@code "value"} last, written without spaces. A value that is one JSON document
 * is embedded as it is ({@code "json":true}): HTTP pop shows it as JSON, and its bytes are cut back out
 * unchanged. Any other bytes field (a non-JSON value, the key, header values) is a JSON string when the bytes are
 * well-formed UTF-8, else {@code {"base64":"..."}}; an absent key, a null value or header value is {@code null}
 * (the key field is then left out). The message's transaction id starts with {@code kafka:}.
 *
 * <p>The Kafka listener stores a record in its binary form ({@link KafkaRecordFormat}, frame flag 8); this envelope
 * is what HTTP readers see of it ({@link #httpPayload}), rendered when they read, and what a message holds that came
 * into the log as JSON (a dead letter retried with its {@code kafka:} transaction id).
 *
 * <p>A message that is neither (an HTTP push) is read by Kafka clients as a record whose value is the payload's
 * bytes and whose key is the message's key (frame flag 32; none without one), without headers, stamped with its
 * segment's commit time; a keyed message whose payload is JSON {@code null} is a tombstone, read with a null value.
 * Stateless, thread-safe.
 */
public final class RecordEnvelope {
    private static final JsonFactory JSON = Json.MAPPER.getFactory();
    private static final byte[] VALUE_FIELD = ",\"value\":".getBytes(StandardCharsets.US_ASCII);

    /** A record as Kafka clients see it. {@code key} and {@code value} may be null. */
    public record Kafka(long timestamp, byte[] key, byte[] value, Header[] headers) {
    }

    private RecordEnvelope() {}

    static byte[] encode(long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers) {
        byte[] v = value == null ? null : bytes(value);
        boolean json = v != null && isJson(v);
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + (v == null ? 0 : v.length * (json ? 1 : 2)));
        try (JsonGenerator g = JSON.createGenerator(out)) {
            // the outer object is closed by hand after the raw value: the generator must not close it again
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
            g.writeStartObject();
            g.writeObjectFieldStart("kafka");
            g.writeNumberField("timestamp", timestamp);
            if (key != null) {
                g.writeFieldName("key");
                writeBytes(g, bytes(key));
            }
            if (headers != null && headers.length > 0) {
                g.writeArrayFieldStart("headers");
                for (Header h : headers) {
                    g.writeStartObject();
                    g.writeStringField("key", h.key());
                    g.writeFieldName("value");
                    writeBytes(g, h.value());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeBooleanField("json", json);
            g.writeEndObject();
            g.flush();
            out.write(VALUE_FIELD);
            if (json) {
                out.write(v);
            } else {
                try (JsonGenerator vg = JSON.createGenerator(out)) {
                    writeBytes(vg, v);
                }
            }
            out.write('}');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The record frame {@code f} stands for, {@code plaintext} its payload decrypted and {@code key} its key
     * decrypted (null without one); {@code commitMillis} stamps a message that holds no record.
     */
    public static Kafka decode(Frame f, byte[] plaintext, byte[] key, long commitMillis) {
        if (f.kafkaRecord()) {
            return stored(plaintext);
        }
        Kafka k = decode(f.transactionId(), plaintext, commitMillis);
        if (key != null) {
            k = new Kafka(k.timestamp(), key, isJsonNull(plaintext) ? null : k.value(), k.headers());
        }
        if (f.spanId() == 0 || k.headers().length > 0) {
            return k;
        }
        // an HTTP producer's trace context reaches a Kafka consumer as the header its instrumentation reads
        Header traceparent = new RecordHeader(TRACEPARENT_HEADER,
                TraceParent.format(f.traceId(), f.spanId(), f.traceFlags()).getBytes(StandardCharsets.US_ASCII));
        return new Kafka(k.timestamp(), k.key(), k.value(), new Header[] {traceparent});
    }

    /** The W3C trace context header Kafka instrumentations write and read. */
    public static final String TRACEPARENT_HEADER = "traceparent";

    /**
     * The producer's trace context a Kafka record carries in its {@code traceparent} header, so an HTTP reader of
     * the message gets it as {@code traceparent}/{@code traceId}; null without one or for a malformed one (a
     * header is the producer's business: it is stored unchanged either way).
     */
    public static TraceParent traceParent(Header[] headers) {
        for (Header h : headers) {
            if (TRACEPARENT_HEADER.equals(h.key()) && h.value() != null) {
                try {
                    return TraceParent.parse(new String(h.value(), StandardCharsets.US_ASCII));
                } catch (IllegalArgumentException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * Whether frame {@code f} ({@code plaintext}: its payload decrypted) is a keyed HTTP message that is a tombstone:
     * its payload is JSON {@code null}. A Kafka record's tombstone is its null value instead.
     */
    public static boolean isTombstone(Frame f, byte[] plaintext) {
        return f.key() != null && isJsonNull(plaintext);
    }

    /** Whether {@code b} is the JSON literal {@code null}, surrounding whitespace allowed. */
    static boolean isJsonNull(byte[] b) {
        int from = 0;
        int to = b.length;
        while (from < to && isJsonSpace(b[from])) {
            from++;
        }
        while (to > from && isJsonSpace(b[to - 1])) {
            to--;
        }
        return to - from == 4 && b[from] == 'n' && b[from + 1] == 'u' && b[from + 2] == 'l' && b[from + 3] == 'l';
    }

    private static boolean isJsonSpace(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    /**
     * Frame {@code f} as HTTP readers get it ({@code plaintext}, {@code key}: its payload and key decrypted): not
     * encrypted, the payload JSON always, and for a Kafka record (flag 8) its JSON envelope with its Kafka key as
     * the frame's key, so a reader finds the key of any message in one place.
     */
    public static Frame http(Frame f, byte[] plaintext, byte[] key) {
        byte[] payload = plaintext;
        if (f.kafkaRecord()) {
            Kafka k = stored(plaintext);
            payload = encode(k.timestamp(), wrap(k.key()), wrap(k.value()), k.headers());
            key = k.key();
        }
        return new Frame(f.messageId(), f.traceId(), f.transactionId(), f.producerSub(), false, payload, false,
                f.spanId(), f.traceFlags(), key);
    }

    /**
     * A message's key as HTTP readers get it, in the encoding the envelope uses for {@code kafka.key}: a JSON
     * string when the bytes are well-formed UTF-8 (an HTTP push's key always is), else {@code {"base64":...}};
     * JSON null without a key.
     */
    public static byte[] keyJson(byte[] key) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(key == null ? 4 : key.length + 16);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            writeBytes(g, key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@link #keyJson} as a tree node, for the readers that build one. */
    public static JsonNode keyNode(byte[] key) {
        if (key == null) {
            return Json.MAPPER.nullNode();
        }
        String text = utf8(key);
        if (text != null) {
            return Json.MAPPER.getNodeFactory().textNode(text);
        }
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("base64", Base64.getEncoder().encodeToString(key));
        return o;
    }

    /** The payload HTTP readers get for frame {@code f} ({@code plaintext}: its payload decrypted): JSON always. */
    public static byte[] httpPayload(Frame f, byte[] plaintext) {
        if (!f.kafkaRecord()) {
            return plaintext;
        }
        Kafka k = stored(plaintext);
        return encode(k.timestamp(), wrap(k.key()), wrap(k.value()), k.headers());
    }

    private static Kafka stored(byte[] binary) {
        return KafkaRecordFormat.storedCopy(binary);
    }

    private static ByteBuffer wrap(byte[] b) {
        return b == null ? null : ByteBuffer.wrap(b);
    }

    /** The record a stored message stands for; {@code commitMillis} stamps a message that is no envelope. */
    private static Kafka decode(String transactionId, byte[] payload, long commitMillis) {
        if (transactionId.startsWith(KafkaTxnId.PREFIX)) {
            Kafka k = envelope(payload);
            if (k != null) {
                return k;
            }
        }
        return new Kafka(commitMillis, null, payload, new Header[0]);
    }

    /**
     * The key and headers of a message the Kafka listener wrote, as the envelope holds them ({@code key}: a string,
     * {@code {"base64":...}} or absent; {@code headers}: [{key, value}], absent when none), for the message list;
     * null for any other message. Parses only the envelope's head, never the value (a record in binary form is
     * rendered as its envelope first: the message list is no hot path).
     */
    public static ObjectNode keyAndHeaders(Frame f, byte[] plaintext) {
        if (!f.transactionId().startsWith(KafkaTxnId.PREFIX)) {
            return null;
        }
        byte[] payload = httpPayload(f, plaintext);
        try (JsonParser p = JSON.createParser(payload)) {
            ObjectNode o = head(p);
            if (o == null) {
                return null;
            }
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.set("key", o.has("key") ? o.get("key") : Json.MAPPER.nullNode());
            out.set("headers", o.has("headers") ? o.get("headers") : Json.MAPPER.createArrayNode());
            return out;
        } catch (IOException e) {
            return null;  // not an envelope: a message like any other
        }
    }

    /** The envelope's {@code "kafka"} object, the parser left after it; null when the payload does not start so. */
    private static ObjectNode head(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME
                || !"kafka".equals(p.currentName()) || p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        return p.readValueAsTree() instanceof ObjectNode o ? o : null;
    }

    /**
     * The record in binary form (frame flag 8) that a dead letter's JSON snapshot of a Kafka record describes, or
     * null when the snapshot is no such envelope. The snapshot went through PostgreSQL's jsonb, which keeps a JSON
     * value's document but not its spacing or key order: such a value comes back as the same document, written
     * compactly; every other value, the key and the headers come back byte for byte.
     */
    public static byte[] fromDeadLetter(byte[] snapshot) {
        try {
            JsonNode root = Json.MAPPER.readTree(snapshot);
            JsonNode meta = root == null ? null : root.get("kafka");
            if (meta == null || !meta.isObject() || !root.has("value") || root.size() != 2) {
                return null;
            }
            JsonNode v = root.get("value");
            byte[] value = meta.path("json").asBoolean(false) ? Json.MAPPER.writeValueAsBytes(v) : readBytes(v);
            JsonNode hs = meta.path("headers");
            List<Header> headers = new ArrayList<>(hs.size());
            for (JsonNode h : hs) {
                headers.add(new RecordHeader(h.path("key").asText(), readBytes(h.get("value"))));
            }
            byte[] key = readBytes(meta.get("key"));
            return KafkaRecordFormat.encode(meta.path("timestamp").asLong(-1), key == null ? null : ByteBuffer.wrap(key),
                    value == null ? null : ByteBuffer.wrap(value), headers.toArray(new Header[0]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Kafka envelope(byte[] payload) {
        try (JsonParser p = JSON.createParser(payload)) {
            ObjectNode meta = head(p);
            if (meta == null || p.nextToken() != JsonToken.FIELD_NAME
                    || !"value".equals(p.currentName())) {
                return null;
            }
            // the value runs from after "value": (written without spaces) to the closing brace, the last byte
            int start = (int) p.currentTokenLocation().getByteOffset() + VALUE_FIELD.length - 1;
            if (start > payload.length - 1 || payload[payload.length - 1] != '}') {
                return null;
            }
            byte[] value;
            if (meta.path("json").asBoolean(false)) {
                value = Arrays.copyOfRange(payload, start, payload.length - 1);
            } else {
                p.nextToken();
                value = readBytes(p.readValueAsTree());
            }
            JsonNode hs = meta.path("headers");
            List<Header> headers = new ArrayList<>(hs.size());
            for (JsonNode h : hs) {
                headers.add(new RecordHeader(h.path("key").asText(), readBytes(h.get("value"))));
            }
            return new Kafka(meta.path("timestamp").asLong(-1), readBytes(meta.get("key")), value,
                    headers.toArray(new Header[0]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void writeBytes(JsonGenerator g, byte[] b) throws IOException {
        if (b == null) {
            g.writeNull();
            return;
        }
        String text = utf8(b);
        if (text != null) {
            g.writeString(text);
        } else {
            g.writeStartObject();
            g.writeStringField("base64", Base64.getEncoder().encodeToString(b));
            g.writeEndObject();
        }
    }

    private static byte[] readBytes(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isTextual()) {
            return n.textValue().getBytes(StandardCharsets.UTF_8);
        }
        return Base64.getDecoder().decode(n.path("base64").asText());
    }

    /** The text of well-formed UTF-8 bytes (which encodes back to the same bytes), else null. */
    private static String utf8(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** True when the bytes are exactly one JSON document in well-formed UTF-8 (surrounding whitespace allowed). */
    static boolean isJson(byte[] b) {
        if (b.length == 0 || utf8(b) == null) {
            return false;
        }
        try (JsonParser p = JSON.createParser(b)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

}
