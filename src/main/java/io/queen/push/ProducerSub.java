package io.queen.push;

import io.queen.auth.Caller;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Stamps pushed items with the authenticated caller's {@code sub} (API spec 1.9): the subject comes only from
 * the verified token, never from the body (a client-sent {@code producerSub} is not even read). Without a subject
 * (authentication off, or a token without {@code sub}) the items are returned as they are. Stateless.
 */
final class ProducerSub {
    /** The frame stores the subject's length as a u16. */
    static final int MAX_BYTES = 65_535;

    private ProducerSub() {
    }

    static List<PushItem> stamp(Caller caller, List<PushItem> items) {
        String sub = caller.subject();
        if (sub == null || items.isEmpty()) {
            return items;
        }
        byte[] utf8 = sub.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_BYTES) {
            // a verified token with an absurd subject: the frame holds at most 65,535 bytes of it
            utf8 = truncate(sub);
        }
        List<PushItem> out = new ArrayList<>(items.size());
        for (PushItem it : items) {
            out.add(it.withProducerSub(utf8));
        }
        return out;
    }

    /** The longest prefix of whole characters that fits {@link #MAX_BYTES} (the encoder stops at a character). */
    private static byte[] truncate(String sub) {
        ByteBuffer buf = ByteBuffer.allocate(MAX_BYTES);
        StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(sub), buf, true);
        return Arrays.copyOf(buf.array(), buf.position());
    }
}
