package io.queen.kafka.group;

import java.util.Set;

/**
 * The states of a classic group, with the names Kafka's DescribeGroups and ListGroups use, how each request is
 * answered in each, and the states a group may come from to enter each ({@link ClassicGroup#transitionTo} checks
 * them, as Apache Kafka's classic coordinator does). A new group starts Empty; a group loaded from its
 * {@link GroupLog} starts in the state saved (Empty, CompletingRebalance or Stable).
 */
enum ClassicGroupState {
    /**
     * No members (or only members still to send their second JoinGroup); also a group used only to store offsets.
     *
     * <ul>
     * <li>JoinGroup: a new member is admitted (told MEMBER_ID_REQUIRED first when its client asks for that), the
     * group moves to PreparingRebalance; a member id the group does not know: UNKNOWN_MEMBER_ID.
     * <li>SyncGroup, Heartbeat: UNKNOWN_MEMBER_ID.
     * <li>LeaveGroup: a member id still pending is forgotten; any other: UNKNOWN_MEMBER_ID.
     * <li>OffsetCommit: taken when it carries no generation; otherwise UNKNOWN_MEMBER_ID.
     * <li>DeleteGroups: the group moves to Dead until its saved state is deleted.
     * </ul>
     * Entered from PreparingRebalance, when a join phase ends with no member left.
     */
    EMPTY("Empty"),

    /**
     * A join phase: members (new and known) join for the next generation.
     *
     * <ul>
     * <li>JoinGroup: parked until every known member has joined again and no member id is pending, or until the
     * rebalance deadline (for a group that was Empty, the initial delay, extended by each newcomer up to the
     * rebalance timeout); the phase then ends, evicting the members that did not join again.
     * <li>SyncGroup: REBALANCE_IN_PROGRESS.
     * <li>Heartbeat: REBALANCE_IN_PROGRESS to members of the current generation (they must join again).
     * <li>LeaveGroup: the member is removed; the phase may end.
     * <li>OffsetCommit: taken from members of the generation being replaced.
     * </ul>
     * Entered from Empty (a member joins), CompletingRebalance and Stable (a member joins, changes its protocols,
     * leaves or is evicted).
     */
    PREPARING_REBALANCE("PreparingRebalance"),

    /**
     * A generation is out; the group waits for its leader's assignment.
     *
     * <ul>
     * <li>JoinGroup: a member with the same protocols is answered the current generation again (the answer it
     * missed); with other protocols the group moves to PreparingRebalance.
     * <li>SyncGroup: parked until the leader's SyncGroup, whose assignment is saved and then answered to every
     * member; the group moves to Stable. A member that sends none within the rebalance timeout is evicted.
     * <li>Heartbeat: answered normally.
     * <li>LeaveGroup: the member is removed, the group moves to PreparingRebalance.
     * <li>OffsetCommit: REBALANCE_IN_PROGRESS (a TxnOffsetCommit of the current generation is taken).
     * </ul>
     * Entered from PreparingRebalance, when a join phase ends with members.
     */
    COMPLETING_REBALANCE("CompletingRebalance"),

    /**
     * Every member has its assignment.
     *
     * <ul>
     * <li>JoinGroup: a follower with the same protocols is answered the current generation; the leader (its view
     * of the topics changed) or a member with other protocols moves the group to PreparingRebalance.
     * <li>SyncGroup: the member's assignment.
     * <li>Heartbeat: answered normally; a member whose session timeout passes without one is evicted and the group
     * moves to PreparingRebalance.
     * <li>LeaveGroup: the member is removed, the group moves to PreparingRebalance.
     * <li>OffsetCommit: taken from members of the current generation.
     * </ul>
     * Entered from CompletingRebalance, when the leader's assignment is saved.
     */
    STABLE("Stable"),

    /**
     * This broker's copy of the group is finished: being deleted (until its saved state is), or dropped (it was
     * forgotten as Empty, it has no saved state for a request that needs one, its saved state could not be read, a
     * save was refused or failed, or another broker coordinates it). A dropped copy leaves the coordinator's map at
     * once, and a request that still holds it starts over on the map's current copy; while a deletion is under way
     * every request is answered COORDINATOR_NOT_AVAILABLE. Entered from every state, itself included (as in Kafka:
     * finishing a finished copy changes nothing).
     */
    DEAD("Dead");

    /** The name Kafka's DescribeGroups and ListGroups use. */
    final String wire;

    ClassicGroupState(String wire) {
        this.wire = wire;
    }

    /** The states a group must be in to move to this one. */
    Set<ClassicGroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> Set.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> Set.of(EMPTY, COMPLETING_REBALANCE, STABLE);
            case COMPLETING_REBALANCE -> Set.of(PREPARING_REBALANCE);
            case STABLE -> Set.of(COMPLETING_REBALANCE);
            case DEAD -> Set.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD);
        };
    }
}
