package io.queen.kafka.group;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The {@code range} assignor: topic by topic, the subscribers in member-id order each take a contiguous range of
 * partitions, the first {@code partitions % subscribers} one more than the others. Members subscribed to the same
 * topics get the same partition numbers of each (co-partitioning); the load is even per topic, not over topics.
 * Unlike Apache Kafka's, it does not try to keep a member's previous partitions. Stateless.
 */
final class RangeAssignor implements PartitionAssignor {
    @Override
    public String name() {
        return "range";
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(List<Subscriber> members, Map<Uuid, Integer> partitions,
            Map<String, Map<Uuid, Set<Integer>>> current) {
        Map<String, Map<Uuid, Set<Integer>>> out = new HashMap<>();
        members.forEach(s -> out.put(s.memberId(), new TreeMap<>()));
        partitions.forEach((topic, count) -> {
            List<Subscriber> subs = members.stream().filter(s -> s.topics().contains(topic)).toList();
            int n = subs.size();
            int next = 0;
            for (int i = 0; i < n; i++) {
                int size = count / n + (i < count % n ? 1 : 0);
                if (size > 0) {
                    Set<Integer> range = new TreeSet<>();
                    for (int p = next; p < next + size; p++) {
                        range.add(p);
                    }
                    out.get(subs.get(i).memberId()).put(topic, range);
                }
                next += size;
            }
        });
        return out;
    }
}
