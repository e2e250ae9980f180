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
    public record Entry(ApiKeys key, short minVersion, short maxVersion, KafkaHandler<ApiMessage> handler) {
        boolean supports(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    private final Map<ApiKeys, Entry> entries = new EnumMap<>(ApiKeys.class);

    /**
     * Serves {@code key} from its oldest version up to {@code maxVersion} (capped at the newest version the
     * kafka-clients classes know).
     */
    @SuppressWarnings("unchecked")
    public <Q extends ApiMessage> KafkaApis serve(ApiKeys key, int maxVersion, KafkaHandler<Q> handler) {
        short max = (short) Math.min(maxVersion, key.latestVersion());
        entries.put(key, new Entry(key, key.oldestVersion(), max, (KafkaHandler<ApiMessage>) handler));
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
