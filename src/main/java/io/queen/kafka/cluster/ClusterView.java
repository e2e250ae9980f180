package io.queen.kafka.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * The live brokers as one broker last read them, and the deterministic choices made from them: which broker leads
 * a partition, which coordinates a group or a transactional id, which is the controller. Every broker that reads
 * the same live set makes the same choices, so clients are sent to one broker per group whichever broker they ask.
 *
 * <p>Spread: live node ids sorted ascending; a partition's leader is {@code nodes[(murmur2(topic) + partition) mod
 * n]} (a topic's partitions go round the brokers from a per-topic start), a coordinator key's broker is
 * {@code nodes[murmur2(key) mod n]} (Kafka's own hash, the same in every JVM); the controller is the lowest id.
 *
 * <p>Invariant: {@code nodes} is non-empty, sorted by id, ids distinct; {@code self} is among them unless it is
 * leaving, fenced or holds {@link #NO_ID}. Immutable, thread-safe.
 */
public record ClusterView(KafkaNode self, List<KafkaNode> nodes) {
    /** The id of a broker that holds none (another process took its id over): it is chosen for nothing. */
    public static final int NO_ID = -1;

    /** What a FindCoordinator key names (Kafka's key types). */
    public enum KeyType {
        GROUP, TRANSACTION
    }

    public ClusterView {
        if (nodes.isEmpty()) {
            nodes = List.of(self);
        }
        nodes = nodes.stream().sorted(Comparator.comparingInt(KafkaNode::id)).toList();
    }

    /** This broker alone: before its first registration, or a broker without the database. */
    public static ClusterView alone(KafkaNode self) {
        return new ClusterView(self, List.of(self));
    }

    /**
     * The same brokers without this one (leaving, or fenced): it is then chosen for nothing. A broker alone stays
     * in its own view (there is no one to hand over to).
     */
    public ClusterView withoutSelf() {
        return new ClusterView(self, nodes.stream().filter(n -> n.id() != self.id()).toList());
    }

    /** Whether this broker is among the live ones it chooses from. */
    public boolean includesSelf() {
        return nodes.stream().anyMatch(n -> n.id() == self.id());
    }

    /** The leader of a topic's partition. */
    public KafkaNode leader(String topic, int partition) {
        int n = nodes.size();
        long start = Utils.toPositive(hash(topic));
        return nodes.get((int) ((start + partition) % n));
    }

    /**
     * The coordinator of a group ({@link KeyType#GROUP}) or of a transactional id ({@link KeyType#TRANSACTION}):
     * the one place the choice is made, for FindCoordinator and for every request that must reach the coordinator.
     */
    public KafkaNode coordinator(KeyType type, String key) {
        return nodes.get(Utils.toPositive(hash(key == null ? "" : key)) % nodes.size());
    }

    /** Whether this broker coordinates {@code key}. */
    public boolean coordinates(KeyType type, String key) {
        return coordinator(type, key).id() == self.id();
    }

    /** The controller id Metadata names: the lowest live node id. */
    public int controllerId() {
        return nodes.get(0).id();
    }

    private static int hash(String s) {
        return Utils.murmur2(s.getBytes(StandardCharsets.UTF_8));
    }
}
