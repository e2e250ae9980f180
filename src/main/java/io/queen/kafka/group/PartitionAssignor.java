package io.queen.kafka.group;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * A server-side assignor of consumer-protocol groups ({@code group.remote.assignor} on the client): from the members'
 * subscriptions and the subscribed topics' partition counts, the target assignment. Implementations are stateless
 * and deterministic (the same input gives the same assignment on any broker).
 */
interface PartitionAssignor {
    /** One member as the assignor sees it: its id and the topics it subscribes to. */
    record Subscriber(String memberId, Set<Uuid> topics) {
    }

    /** The name clients choose it by. */
    String name();

    /**
     * The target assignment: member id → topic id → partitions, for every member (an empty map for one given none).
     *
     * @param members the members, sorted by member id
     * @param partitions the partition count of every subscribed topic that exists
     * @param current the previous target assignment (member id → partitions), which a sticky assignor keeps
     */
    Map<String, Map<Uuid, Set<Integer>>> assign(List<Subscriber> members, Map<Uuid, Integer> partitions,
            Map<String, Map<Uuid, Set<Integer>>> current);

    /** The assignors served, by name; the first is the default. */
    static Map<String, PartitionAssignor> all() {
        java.util.LinkedHashMap<String, PartitionAssignor> out = new java.util.LinkedHashMap<>();
        for (PartitionAssignor a : List.of(new UniformAssignor(), new RangeAssignor())) {
            out.put(a.name(), a);
        }
        return out;
    }
}
