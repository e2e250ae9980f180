package io.queen.bench;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;

/**
 * Message payloads and transaction ids.
 *
 * <p>Payload: {@code {"p":<producer>,"s":<seq>,"t":<nanoTime>,"pad":"xxx..."}} padded with {@code x} so that
 * its UTF-8 size is exactly {@code payloadBytes} (or the unpadded size when that is already larger).
 * Transaction id: {@code <run-id>-<producer>-<seq>}.
 */
public final class Payloads {

    /** What a consumer recovers from a delivered payload. */
    public record Stamp(int producer, long seq, long nanos) {}

    private Payloads() {}

    private static final char[] ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    public static String payload(int producer, long seq, long nanos, int payloadBytes) {
        return payload(producer, seq, nanos, payloadBytes, false);
    }

    /** With {@code random}, the padding is random letters and digits instead of {@code x}. */
    public static String payload(int producer, long seq, long nanos, int payloadBytes, boolean random) {
        String head = "{\"p\":" + producer + ",\"s\":" + seq + ",\"t\":" + nanos + ",\"pad\":\"";
        String tail = "\"}";
        int pad = Math.max(0, payloadBytes - head.length() - tail.length());
        var sb = new StringBuilder(head.length() + pad + tail.length());
        sb.append(head);
        if (random) {
            var rnd = java.util.concurrent.ThreadLocalRandom.current();
            for (int i = 0; i < pad; i++) {
                sb.append(ALNUM[rnd.nextInt(ALNUM.length)]);
            }
        } else {
            sb.repeat('x', pad);
        }
        sb.append(tail);
        return sb.toString();
    }

    public static String transactionId(String runId, int producer, long seq) {
        return runId + "-" + producer + "-" + seq;
    }

    /**
     * The stamp of a delivered payload read from a parser positioned on the payload's START_OBJECT (consumes the
     * object), or {@code null} when it is not one of ours.
     */
    public static Stamp stampOf(com.fasterxml.jackson.core.JsonParser p) throws java.io.IOException {
        Long producer = null;
        Long seq = null;
        Long nanos = null;
        com.fasterxml.jackson.core.JsonToken t;
        while ((t = p.nextToken()) == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
            String f = p.currentName();
            com.fasterxml.jackson.core.JsonToken v = p.nextToken();
            Long n = v == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : null;
            switch (f) {
                case "p" -> producer = n;
                case "s" -> seq = n;
                case "t" -> nanos = n;
                default -> p.skipChildren();
            }
        }
        if (producer == null || seq == null || nanos == null || producer < Integer.MIN_VALUE
                || producer > Integer.MAX_VALUE) {
            return null;
        }
        return new Stamp(producer.intValue(), seq, nanos);
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    /** The stamp of a delivered payload given as JSON text, or {@code null} when it is not one of ours. */
    public static Stamp stampOfText(String json) {
        try {
            return stamp(JSON.readTree(json));
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /** The stamp of a delivered payload, or {@code null} when it is not one of ours. */
    public static Stamp stamp(JsonNode data) {
        if (data == null || !data.isObject()) {
            return null;
        }
        JsonNode p = data.get("p");
        JsonNode s = data.get("s");
        JsonNode t = data.get("t");
        if (p == null || s == null || t == null || !p.canConvertToInt() || !s.canConvertToLong()
                || !t.canConvertToLong()) {
            return null;
        }
        return new Stamp(p.intValue(), s.longValue(), t.longValue());
    }

    /** True when the transaction id belongs to this run and matches the stamp. */
    public static boolean ours(String transactionId, String runId, Stamp stamp) {
        return stamp != null && transactionId != null
                && transactionId.equals(transactionId(runId, stamp.producer(), stamp.seq()));
    }

    public static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
