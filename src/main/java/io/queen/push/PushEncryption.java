package io.queen.push;

import io.queen.api.ApiException;
import io.queen.crypto.PayloadCipher;
import io.queen.queue.QueueFlags;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Replaces the payloads (and keys) of items bound for queues with {@code encryptionEnabled} by AES-GCM envelopes before
 * they are packed (push and the transaction wire). Without a configured key a push to such a queue is a 400
 * naming {@code QUEEN_ENCRYPTION_KEY} and writes nothing (it would otherwise store plaintext in a queue that
 * promises encryption). Thread-safe.
 */
@Singleton
public class PushEncryption {
    private final QueueFlags flags;
    private final PayloadCipher cipher;

    PushEncryption(QueueFlags flags, PayloadCipher cipher) {
        this.flags = flags;
        this.cipher = cipher;
    }

    public List<PushItem> apply(UUID tenant, List<PushItem> items) throws SQLException {
        if (items.isEmpty()) {
            return items;
        }
        Set<String> queues = new LinkedHashSet<>();
        items.forEach(i -> queues.add(i.queue()));
        Set<String> encrypted = flags.encrypted(tenant, queues);
        if (encrypted.isEmpty()) {
            return items;
        }
        if (!cipher.enabled()) {
            // storing plaintext in a queue that promises encryption would break the promise silently
            throw ApiException.badRequest("queue " + encrypted.iterator().next()
                    + " has encryptionEnabled but QUEEN_ENCRYPTION_KEY is not set on this broker");
        }
        List<PushItem> out = new ArrayList<>(items.size());
        for (PushItem it : items) {
            // the key is the producer's data as much as the payload: it gets its own envelope under the same key
            out.add(encrypted.contains(it.queue()) ? it.withEncrypted(cipher.encrypt(it.payload()),
                    it.key() == null ? null : cipher.encrypt(it.key())) : it);
        }
        return out;
    }
}
