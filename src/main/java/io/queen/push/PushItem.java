package io.queen.push;

import java.util.UUID;

/**
 * One validated item of a push request. {@code payload} holds the JSON value's bytes exactly as the client
 * sent them; {@code transactionId} is never null (minted from the message id when the client sent none).
 */
public record PushItem(int index, String queue, String partition, String transactionId, byte[] transactionIdUtf8,
        UUID traceId, UUID messageId, byte[] payload, boolean encrypted) {

    /** The same item carrying an encryption envelope instead of its plaintext payload (frame flag 4). */
    public PushItem withEncryptedPayload(byte[] envelope) {
        return new PushItem(index, queue, partition, transactionId, transactionIdUtf8, traceId, messageId, envelope,
                true);
    }
}
