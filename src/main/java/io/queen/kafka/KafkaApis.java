package io.queen.kafka;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The dispatch table: which API keys this listener serves, in which version range, by which handler. Built once
 * at startup ({@link #serve}), read by every connection afterwards.
 *
 * <p>Invariant: every key in the table has a range inside what the kafka-clients classes can parse and write
 * ({@code oldestVersion()..latestVersion()}). Thread-safety: filled before the listener accepts its first
 * connection, read-only afterwards (the map is published through the listener's start).
 */
public final class KafkaApis {
    /** One served API: its version range and handler. */
    public record Entry(ApiKeys key, short minVersion, short maxVersion, boolean ordered,
            KafkaHandler<ApiMessage> handler) {
        boolean supports(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    private final Map<ApiKeys, Entry> entries = new EnumMap<>(ApiKeys.class);

    /**
     * Serves {@code key} from its oldest version up to {@code maxVersion} (capped at the newest version the
     * kafka-clients classes know).
     */
    public <Q extends ApiMessage> KafkaApis serve(ApiKeys key, int maxVersion, KafkaHandler<Q> handler) {
        return put(key, maxVersion, false, handler);
    }

    /**
     * Like {@link #serve}, but the handler is called for one connection's requests of such keys one after the
     * other, in request order: each call starts once the previous one has returned its stage (not once that stage
     * has completed). A handler that orders its effects before returning (Produce: the records are queued for
     * their segments) keeps a pipelining client's order without waiting for the previous answer.
     */
    public <Q extends ApiMessage> KafkaApis serveInOrder(ApiKeys key, int maxVersion, KafkaHandler<Q> handler) {
        return put(key, maxVersion, true, handler);
    }

    @SuppressWarnings("unchecked")
    private <Q extends ApiMessage> KafkaApis put(ApiKeys key, int maxVersion, boolean ordered,
            KafkaHandler<Q> handler) {
        short max = (short) Math.min(maxVersion, key.latestVersion());
        entries.put(key, new Entry(key, key.oldestVersion(), max, ordered, (KafkaHandler<ApiMessage>) handler));
        return this;
    }

    /** The entry serving {@code key}, or null when it is not served. */
    public Entry entry(ApiKeys key) {
        return entries.get(key);
    }

    public Collection<Entry> entries() {
        return entries.values();
    }

    /** The ranges ApiVersions announces. */
    public ApiVersionCollection versions() {
        ApiVersionCollection out = new ApiVersionCollection();
        for (Entry e : entries.values()) {
            out.add(new ApiVersion().setApiKey(e.key().id).setMinVersion(e.minVersion()).setMaxVersion(e.maxVersion()));
        }
        return out;
    }
}
