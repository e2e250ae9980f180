package io.queen.kafka.group;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * One member of a {@link ConsumerGroup}: what its heartbeats said (subscription, assignor, rebalance timeout), its
 * member epoch and the partitions it owns: {@code assigned} (it may fetch them) and {@code revoking} (it was told to
 * give them up and has not confirmed yet; still its own, so nobody else is given them). Guarded by its group's
 * monitor.
 */
final class ConsumerMember {
    /** Where the member stands against the target assignment (Apache Kafka's {@code MemberState}). */
    enum Reconciliation {
        /** It owns what the target gives it at the member epoch. */
        STABLE,
        /** It must confirm giving partitions up before it can move on. */
        UNREVOKED_PARTITIONS,
        /** Partitions of its target are still owned by others. */
        UNRELEASED_PARTITIONS
    }

    final String memberId;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    int rebalanceTimeoutMs;
    List<String> subscribedNames = List.of();
    String subscribedRegex;
    String serverAssignor;
    int memberEpoch;
    int previousEpoch;
    Reconciliation reconciliation = Reconciliation.STABLE;
    Map<Uuid, Set<Integer>> assigned = Map.of();
    Map<Uuid, Set<Integer>> revoking = Map.of();
    /** Clock time (ms) of its last heartbeat: the session runs from it. */
    long lastHeartbeatMs;
    /** Clock time (ms) by which it must confirm its revocation, while {@link Reconciliation#UNREVOKED_PARTITIONS}. */
    long revokeDeadlineMs;
    /** Wall-clock time it joined (shown, never compared). */
    java.time.Instant joinedAt = java.time.Instant.now();

    ConsumerMember(String memberId) {
        this.memberId = memberId;
    }

    /** A copy under another member id (a static member's new process takes the place of the old one). */
    ConsumerMember replacedBy(String newId) {
        ConsumerMember m = new ConsumerMember(newId);
        m.instanceId = instanceId;
        m.rackId = rackId;
        m.clientId = clientId;
        m.clientHost = clientHost;
        m.rebalanceTimeoutMs = rebalanceTimeoutMs;
        m.subscribedNames = subscribedNames;
        m.subscribedRegex = subscribedRegex;
        m.serverAssignor = serverAssignor;
        m.assigned = assigned;
        m.joinedAt = joinedAt;
        return m;
    }
}
