package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The server-side assignors: every subscribed partition to one subscriber, balance, stickiness, ranges. */
class PartitionAssignorTest {
    static final Uuid A = new Uuid(0, 1);
    static final Uuid B = new Uuid(0, 2);
    final UniformAssignor uniform = new UniformAssignor();
    final RangeAssignor range = new RangeAssignor();

    static PartitionAssignor.Subscriber sub(String id, Uuid... topics) {
        return new PartitionAssignor.Subscriber(id, Set.of(topics));
    }

    static int count(Map<Uuid, Set<Integer>> a) {
        return a.values().stream().mapToInt(Set::size).sum();
    }

    /** Every partition of the topics exactly once, each to a subscriber of its topic. */
    static void assertComplete(List<PartitionAssignor.Subscriber> members, Map<Uuid, Integer> partitions,
            Map<String, Map<Uuid, Set<Integer>>> out) {
        Set<String> seen = new HashSet<>();
        for (PartitionAssignor.Subscriber s : members) {
            out.get(s.memberId()).forEach((t, ps) -> {
                assertTrue(s.topics().contains(t), s.memberId() + " given a topic it does not subscribe to");
                ps.forEach(p -> assertTrue(seen.add(t + "/" + p), t + "/" + p + " given twice"));
            });
        }
        assertEquals(partitions.values().stream().mapToInt(Integer::intValue).sum(), seen.size());
    }

    @Test
    void uniformBalancesAndKeepsWhatMembersHadWhenOneJoins() {
        Map<Uuid, Integer> partitions = Map.of(A, 6, B, 3);
        List<PartitionAssignor.Subscriber> two = List.of(sub("m1", A, B), sub("m2", A, B));
        Map<String, Map<Uuid, Set<Integer>>> first = uniform.assign(two, partitions, Map.of());
        assertComplete(two, partitions, first);
        List<PartitionAssignor.Subscriber> three = List.of(sub("m1", A, B), sub("m2", A, B), sub("m3", A, B));
        Map<String, Map<Uuid, Set<Integer>>> next = uniform.assign(three, partitions, first);
        assertComplete(three, partitions, next);
        for (String m : List.of("m1", "m2", "m3")) {
            assertEquals(3, count(next.get(m)), m);
        }
        for (String m : List.of("m1", "m2")) {
            next.get(m).forEach((t, ps) -> assertTrue(first.get(m).get(t).containsAll(ps),
                    m + " only gave partitions up"));
        }
    }

    @Test
    void uniformGivesEachTopicOnlyToItsSubscribers() {
        Map<Uuid, Integer> partitions = Map.of(A, 4, B, 4);
        List<PartitionAssignor.Subscriber> members = List.of(sub("m1", A), sub("m2", A, B), sub("m3", B));
        Map<String, Map<Uuid, Set<Integer>>> out = uniform.assign(members, partitions, new HashMap<>());
        assertComplete(members, partitions, out);
        List<Integer> sizes = members.stream().map(s -> count(out.get(s.memberId()))).sorted().toList();
        assertTrue(sizes.get(2) - sizes.get(0) <= 1, "balanced: " + sizes);
    }

    @Test
    void rangeGivesContiguousRangesPerTopicInMemberOrder() {
        Map<Uuid, Integer> partitions = Map.of(A, 5, B, 2);
        List<PartitionAssignor.Subscriber> members = List.of(sub("m1", A, B), sub("m2", A, B));
        Map<String, Map<Uuid, Set<Integer>>> out = range.assign(members, partitions, Map.of());
        assertComplete(members, partitions, out);
        assertEquals(Map.of(A, Set.of(0, 1, 2), B, Set.of(0)), out.get("m1"));
        assertEquals(Map.of(A, Set.of(3, 4), B, Set.of(1)), out.get("m2"));
        assertEquals(List.of("uniform", "range"), List.copyOf(PartitionAssignor.all().keySet()));
    }
}
