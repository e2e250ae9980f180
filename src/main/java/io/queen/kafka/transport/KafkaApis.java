package io.queen.kafka.transport;

import io.queen.auth.Access;
import io.queen.auth.Role;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
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
            KafkaHandler<ApiMessage> handler, KafkaBatchHandler<ApiMessage> batch) {
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
        return put(key, key.oldestVersion(), maxVersion, false, handler);
    }

    /** Serves {@code key} from {@code minVersion} (not below the oldest the classes know) to {@code maxVersion}. */
    public <Q extends ApiMessage> KafkaApis serve(ApiKeys key, int minVersion, int maxVersion,
            KafkaHandler<Q> handler) {
        return put(key, Math.max(minVersion, key.oldestVersion()), maxVersion, false, handler);
    }

    /**
     * Like {@link #serve}, but the handler is called for one connection's requests of such keys one after the
     * other, in request order: each call starts once the previous one has returned its stage (not once that stage
     * has completed). A handler that orders its effects before returning (Produce: the records are queued for
     * their segments) keeps a pipelining client's order without waiting for the previous answer.
     */
    public <Q extends ApiMessage> KafkaApis serveInOrder(ApiKeys key, int maxVersion, KafkaHandler<Q> handler) {
        return put(key, key.oldestVersion(), maxVersion, true, handler);
    }

    /**
     * Serves {@code key} one connection's requests at a time in request order, as {@link #serveInOrder}, but hands
     * the handler every request of the key that queued up on the connection while its previous call ran: a client
     * that pipelines them (offset commits sent without waiting for the answer) is served by one call per batch.
     */
    @SuppressWarnings("unchecked")
    public <Q extends ApiMessage> KafkaApis serveCoalesced(ApiKeys key, int maxVersion, KafkaBatchHandler<Q> handler) {
        KafkaBatchHandler<ApiMessage> batch = (KafkaBatchHandler<ApiMessage>) (KafkaBatchHandler<?>) handler;
        KafkaHandler<ApiMessage> one = (c, v, r) -> batch.handle(List.of(new KafkaCall<>(c, v, r))).get(0);
        return put(key, key.oldestVersion(), maxVersion, true, one, batch);
    }

    private <Q extends ApiMessage> KafkaApis put(ApiKeys key, int minVersion, int maxVersion, boolean ordered,
            KafkaHandler<Q> handler) {
        return put(key, minVersion, maxVersion, ordered, handler, null);
    }

    @SuppressWarnings("unchecked")
    private <Q extends ApiMessage> KafkaApis put(ApiKeys key, int minVersion, int maxVersion, boolean ordered,
            KafkaHandler<Q> handler, KafkaBatchHandler<ApiMessage> batch) {
        short max = (short) Math.min(maxVersion, key.latestVersion());
        entries.put(key, new Entry(key, (short) minVersion, max, ordered, (KafkaHandler<ApiMessage>) handler,
                batch));
        return this;
    }

    /**
     * What a caller's role must allow for {@code key} while authentication is on ({@link Role#allows}):
     * {@code PUBLIC} = any authenticated caller. Reads by offset and group membership are reads; committing a
     * group's offset moves its cursor as an HTTP ack does (so do a transaction's offsets, TxnOffsetCommit and
     * AddOffsetsToTxn; and a share group's ShareFetch and ShareAcknowledge, which acquire and acknowledge
     * records as an HTTP pop and ack do); a transaction's partitions and its end are produce; topic and group
     * administration is admin; anything not listed is admin. The describe calls follow Apache Kafka's ACLs:
     * DescribeCluster tells what Metadata tells (Kafka checks no ACL for it), DescribeProducers needs READ on the
     * topic (read here), DescribeLogDirs DESCRIBE on the cluster (admin here, with the broker's other cluster-wide
     * calls); CreatePartitions, ALTER on the topic, is topic administration.
     */
    public static Access.Level level(ApiKeys key) {
        return switch (key) {
            case API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE, METADATA, FIND_COORDINATOR, DESCRIBE_CLUSTER ->
                    Access.Level.PUBLIC;
            case PRODUCE, INIT_PRODUCER_ID, ADD_PARTITIONS_TO_TXN, END_TXN -> Access.Level.PRODUCE;
            case FETCH, LIST_OFFSETS, DESCRIBE_CONFIGS, OFFSET_FETCH, JOIN_GROUP, SYNC_GROUP, HEARTBEAT,
                    LEAVE_GROUP, LIST_GROUPS, DESCRIBE_GROUPS, DESCRIBE_PRODUCERS, CONSUMER_GROUP_HEARTBEAT,
                    CONSUMER_GROUP_DESCRIBE, SHARE_GROUP_HEARTBEAT, SHARE_GROUP_DESCRIBE,
                    DESCRIBE_SHARE_GROUP_OFFSETS -> Access.Level.READ;
            case OFFSET_COMMIT, TXN_OFFSET_COMMIT, ADD_OFFSETS_TO_TXN, SHARE_FETCH, SHARE_ACKNOWLEDGE ->
                    Access.Level.WRITE;
            default -> Access.Level.ADMIN;
        };
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
