package io.queen.kafka.group;

import java.util.Set;

/**
 * The states of a consumer-protocol group (KIP-848), as Apache Kafka's {@code ConsumerGroup.ConsumerGroupState}, with
 * the names ListGroups, DescribeGroups and ConsumerGroupDescribe answer. The state follows from the group's members
 * after every change: Empty without members; Assigning while the group epoch is ahead of the target assignment's
 * epoch; Reconciling while a member has not reached the target assignment; Stable once every member has. Dead: the
 * copy was dropped (this broker no longer coordinates the group, or a save was refused).
 */
enum ConsumerGroupState {
    EMPTY("Empty"),
    ASSIGNING("Assigning"),
    RECONCILING("Reconciling"),
    STABLE("Stable"),
    DEAD("Dead");

    /** The state's name on the wire. */
    final String wire;

    ConsumerGroupState(String wire) {
        this.wire = wire;
    }

    /** The states this one may be entered from: any live state follows any other, nothing follows Dead. */
    Set<ConsumerGroupState> validPreviousStates() {
        return this == DEAD ? Set.of(EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD)
                : Set.of(EMPTY, ASSIGNING, RECONCILING, STABLE);
    }
}
