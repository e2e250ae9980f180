package io.queen.kafka.group;

import java.util.List;

/**
 * Where a classic group's state outlives the broker coordinating it: loaded by whichever broker coordinates the
 * group next, saved by its coordinator at each completed join phase (a new generation) and each assignment. A save
 * names the version it continues; a save over any other version is refused, so two brokers that both believe they
 * coordinate a group (their views of the live brokers differ for up to one heartbeat) never move it apart, and its
 * generation never goes backwards. Implementations are thread-safe.
 */
interface GroupLog {
    /** A group's state as saved; {@code version} counts the saves (the first is 1). */
    record Saved(long version, int generation, String state, String protocolType, String protocolName,
            String leaderId, List<SavedMember> members) {
    }

    /** One member as saved: enough to continue its heartbeats and hand it its assignment again. */
    record SavedMember(String memberId, String instanceId, String clientId, String clientHost, int sessionTimeoutMs,
            int rebalanceTimeoutMs, String protocolType, List<ClassicGroups.Protocol> protocols, byte[] assignment) {
    }

    /** A save or a load that failed (the database): the caller treats its copy of the group as stale. */
    final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The saved state, or null when the group has none. */
    Saved load(ClassicGroups.Key key);

    /**
     * Saves {@code state} (its version ignored) over {@code expectedVersion} (0: nothing saved yet); answers the new
     * version, or -1 when the saved state has moved on (the caller's copy is stale).
     */
    long save(ClassicGroups.Key key, long expectedVersion, Saved state);

    /** Forgets the group's saved state. */
    void delete(ClassicGroups.Key key);
}
