package io.queen.push;

import io.queen.crypto.PayloadCipher;
import io.queen.queue.QueueFlags;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Replaces the payloads of items bound for queues with {@code encryptionEnabled} by AES-GCM envelopes before
 * they are packed (push and the transaction wire). Without a configured key such queues store plaintext, as the
 * API spec says, and the broker warns once per queue. Thread-safe.
 */
@ApplicationScoped
public class PushEncryption {
    private static final Logger LOG = Logger.getLogger(PushEncryption.class);

    private final QueueFlags flags;
    private final PayloadCipher cipher;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

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
            for (String q : encrypted) {
                if (warned.add(q)) {
                    LOG.warnf("queue %s has encryptionEnabled but QUEEN_ENCRYPTION_KEY is not set: storing plaintext", q);
                }
            }
            return items;
        }
        List<PushItem> out = new ArrayList<>(items.size());
        for (PushItem it : items) {
            out.add(encrypted.contains(it.queue()) ? it.withEncryptedPayload(cipher.encrypt(it.payload())) : it);
        }
        return out;
    }
}
