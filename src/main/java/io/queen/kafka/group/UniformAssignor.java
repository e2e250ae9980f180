package io.queen.kafka.group;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The {@code uniform} assignor (Apache Kafka's default server-side assignor): every partition of the subscribed
 * topics to one of its subscribers, the members' partition counts as even as their subscriptions allow, and sticky:
 * a member keeps the partitions it had in the previous target unless balance needs them elsewhere, so a member
 * joining or leaving moves as few partitions as it can. Stateless.
 */
final class UniformAssignor implements PartitionAssignor {
    @Override
    public String name() {
        return "uniform";
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(List<Subscriber> members, Map<Uuid, Integer> partitions,
            Map<String, Map<Uuid, Set<Integer>>> current) {
        Map<String, Map<Uuid, Set<Integer>>> out = new HashMap<>();
        Map<String, Integer> counts = new HashMap<>();
        Map<Uuid, Map<Integer, String>> owner = new TreeMap<>();
        for (Subscriber s : members) {
            out.put(s.memberId(), new TreeMap<>());
            counts.put(s.memberId(), 0);
        }
        // 1. each member keeps what it had, where it still subscribes and the partition still exists
        for (Subscriber s : members) {
            current.getOrDefault(s.memberId(), Map.of()).forEach((topic, ps) -> {
                int n = partitions.getOrDefault(topic, 0);
                if (s.topics().contains(topic)) {
                    for (int p : ps) {
                        if (p < n && owner.computeIfAbsent(topic, k -> new TreeMap<>()).putIfAbsent(p, s.memberId())
                                == null) {
                            give(out, counts, s.memberId(), topic, p);
                        }
                    }
                }
            });
        }
        // 2. each partition without an owner to its least loaded subscriber
        for (Map.Entry<Uuid, Integer> t : new TreeMap<>(partitions).entrySet()) {
            for (int p = 0; p < t.getValue(); p++) {
                if (owner.computeIfAbsent(t.getKey(), k -> new TreeMap<>()).containsKey(p)) {
                    continue;
                }
                String to = leastLoaded(members, counts, t.getKey());
                if (to != null) {
                    owner.get(t.getKey()).put(p, to);
                    give(out, counts, to, t.getKey(), p);
                }
            }
        }
        // 3. balance: a partition moves while a subscriber of its topic holds at least two fewer than its owner
        boolean moved = true;
        while (moved) {
            moved = false;
            for (Map.Entry<Uuid, Map<Integer, String>> t : owner.entrySet()) {
                for (Map.Entry<Integer, String> p : t.getValue().entrySet()) {
                    String to = leastLoaded(members, counts, t.getKey());
                    if (to != null && counts.get(to) < counts.get(p.getValue()) - 1) {
                        out.get(p.getValue()).get(t.getKey()).remove(p.getKey());
                        counts.merge(p.getValue(), -1, Integer::sum);
                        give(out, counts, to, t.getKey(), p.getKey());
                        p.setValue(to);
                        moved = true;
                    }
                }
            }
        }
        out.values().forEach(m -> m.values().removeIf(Set::isEmpty));
        return out;
    }

    private static void give(Map<String, Map<Uuid, Set<Integer>>> out, Map<String, Integer> counts, String member,
            Uuid topic, int partition) {
        out.get(member).computeIfAbsent(topic, k -> new TreeSet<>()).add(partition);
        counts.merge(member, 1, Integer::sum);
    }

    /** The subscriber of {@code topic} holding fewest partitions (the first by member id on a tie), or null. */
    private static String leastLoaded(List<Subscriber> members, Map<String, Integer> counts, Uuid topic) {
        String best = null;
        for (Subscriber s : members) {
            if (s.topics().contains(topic) && (best == null || counts.get(s.memberId()) < counts.get(best))) {
                best = s.memberId();
            }
        }
        return best;
    }
}
