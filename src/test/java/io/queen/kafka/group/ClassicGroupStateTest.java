package io.queen.kafka.group;

import static io.queen.kafka.group.ClassicGroupState.COMPLETING_REBALANCE;
import static io.queen.kafka.group.ClassicGroupState.DEAD;
import static io.queen.kafka.group.ClassicGroupState.EMPTY;
import static io.queen.kafka.group.ClassicGroupState.PREPARING_REBALANCE;
import static io.queen.kafka.group.ClassicGroupState.STABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ClassicGroups.Settings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The classic group's state table, pair by pair: every move Kafka's classic coordinator allows is taken, every other
 * one throws and leaves the group where it was.
 */
class ClassicGroupStateTest {
    /** The allowed moves, written out apart from the enum: target → the states it may follow. */
    static final Map<ClassicGroupState, Set<ClassicGroupState>> ALLOWED = Map.of(
            EMPTY, Set.of(PREPARING_REBALANCE),
            PREPARING_REBALANCE, Set.of(EMPTY, COMPLETING_REBALANCE, STABLE),
            COMPLETING_REBALANCE, Set.of(PREPARING_REBALANCE),
            STABLE, Set.of(COMPLETING_REBALANCE),
            DEAD, Set.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD));

    /** A legal way from a new group (Empty) to each state. */
    static final Map<ClassicGroupState, List<ClassicGroupState>> PATH = Map.of(
            EMPTY, List.of(),
            PREPARING_REBALANCE, List.of(PREPARING_REBALANCE),
            COMPLETING_REBALANCE, List.of(PREPARING_REBALANCE, COMPLETING_REBALANCE),
            STABLE, List.of(PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE),
            DEAD, List.of(DEAD));

    static ClassicGroup groupIn(ClassicGroupState state) {
        ClassicGroup g = new ClassicGroup(new Key(UUID.randomUUID(), "g"), new Settings(0, 1000, 60_000, 50, 1 << 20),
                () -> 0L, new InMemoryGroupLog());
        PATH.get(state).forEach(g::transitionTo);
        assertEquals(state, g.state());
        return g;
    }

    @Test
    void everyMoveInTheTableIsTakenAndEveryOtherThrows() {
        for (ClassicGroupState from : ClassicGroupState.values()) {
            for (ClassicGroupState to : ClassicGroupState.values()) {
                ClassicGroup g = groupIn(from);
                if (ALLOWED.get(to).contains(from)) {
                    g.transitionTo(to);
                    assertEquals(to, g.state(), from + " → " + to);
                } else {
                    assertThrows(IllegalStateException.class, () -> g.transitionTo(to), from + " → " + to);
                    assertEquals(from, g.state(), "a refused move leaves the group " + from);
                }
            }
        }
    }

    @Test
    void namesAreKafkas() {
        assertEquals(List.of("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"),
                List.of(EMPTY.wire, PREPARING_REBALANCE.wire, COMPLETING_REBALANCE.wire, STABLE.wire, DEAD.wire));
    }
}
