package io.queen.segment;

import java.util.UUID;

/**
 * The transaction ids of records written through the Kafka listener: {@code kafka:<producerId>:<epoch>:<sequence>}
 * for a record of an idempotent producer (its batch's base sequence plus its index in the batch), so a retried batch
 * carries the ids its first attempt stored, and {@code kafka:<message id>} for any other record.
 *
 * <p>{@link #parse} recognises the first form in its canonical spelling only (decimal, no sign, no leading zero),
 * the one {@link #of} writes: two different ids never parse to the same triple, so a structure keyed by the triple
 * answers for exactly the ids it was given. Stateless, thread-safe.
 */
public final class KafkaTxnId {
    /** What every such id starts with. */
    public static final String PREFIX = "kafka:";
    private static final byte[] PREFIX_UTF8 = {'k', 'a', 'f', 'k', 'a', ':'};

    private KafkaTxnId() {}

    /** The id of an idempotent producer's record. */
    public static String of(long producerId, short epoch, int sequence) {
        return PREFIX + producerId + ":" + epoch + ":" + sequence;
    }

    /** The id of a record without a producer sequence. */
    public static String of(UUID messageId) {
        return PREFIX + messageId;
    }

    /**
     * Reads a canonical {@code kafka:<producerId>:<epoch>:<sequence>} into {@code out} (producer id, epoch,
     * sequence); false, {@code out} undefined, for any other id. Allocation-free: it runs once per stored frame.
     */
    public static boolean parse(byte[] utf8, long[] out) {
        if (utf8.length < PREFIX_UTF8.length + 5) {
            return false;
        }
        for (int i = 0; i < PREFIX_UTF8.length; i++) {
            if (utf8[i] != PREFIX_UTF8[i]) {
                return false;
            }
        }
        int at = PREFIX_UTF8.length;
        for (int part = 0; part < 3; part++) {
            int start = at;
            long v = 0;
            while (at < utf8.length && utf8[at] >= '0' && utf8[at] <= '9') {
                if (at - start == 18) {
                    return false;   // beyond 18 digits: not a value of(...) writes for an id the sequence hands out
                }
                v = v * 10 + (utf8[at] - '0');
                at++;
            }
            int digits = at - start;
            if (digits == 0 || (digits > 1 && utf8[start] == '0')) {
                return false;
            }
            if (part < 2) {
                if (at >= utf8.length || utf8[at] != ':') {
                    return false;
                }
                at++;
            }
            out[part] = v;
        }
        return at == utf8.length && out[1] <= Short.MAX_VALUE && out[2] <= Integer.MAX_VALUE;
    }
}
