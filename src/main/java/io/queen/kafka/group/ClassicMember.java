package io.queen.kafka.group;

import io.queen.kafka.group.ClassicGroups.JoinRequest;
import io.queen.kafka.group.ClassicGroups.JoinResult;
import io.queen.kafka.group.ClassicGroups.Protocol;
import io.queen.kafka.group.ClassicGroups.SyncResult;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a {@link ClassicGroup}: what its last JoinGroup said, its assignment, its session, and the
 * JoinGroup or SyncGroup it waits in. Guarded by its group's monitor.
 */
final class ClassicMember {
    /** An empty assignment or metadata. */
    static final byte[] NONE = new byte[0];

    final String memberId;
    final String instanceId;
    String clientId;
    String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    String protocolType;
    List<Protocol> protocols;
    byte[] assignment = NONE;
    /** Wall-clock time of the first join under this member id (shown, never compared). */
    final java.time.Instant joinedAt = java.time.Instant.now();
    CompletableFuture<JoinResult> joining;
    CompletableFuture<SyncResult> syncing;
    long lastHeartbeatMs;

    ClassicMember(String memberId, JoinRequest r, long now) {
        this.memberId = memberId;
        this.instanceId = r.instanceId();
        update(r, now);
    }

    ClassicMember(GroupLog.SavedMember s, long now) {
        this.memberId = s.memberId();
        this.instanceId = s.instanceId();
        clientId = s.clientId();
        clientHost = s.clientHost();
        sessionTimeoutMs = s.sessionTimeoutMs();
        rebalanceTimeoutMs = s.rebalanceTimeoutMs();
        protocolType = s.protocolType();
        protocols = s.protocols();
        assignment = s.assignment() == null ? NONE : s.assignment();
        lastHeartbeatMs = now;
    }

    GroupLog.SavedMember saved() {
        return new GroupLog.SavedMember(memberId, instanceId, clientId, clientHost, sessionTimeoutMs,
                rebalanceTimeoutMs, protocolType, protocols, assignment);
    }

    void update(JoinRequest r, long now) {
        clientId = r.clientId();
        clientHost = r.clientHost();
        sessionTimeoutMs = r.sessionTimeoutMs();
        rebalanceTimeoutMs = r.rebalanceTimeoutMs() < 0 ? r.sessionTimeoutMs() : r.rebalanceTimeoutMs();
        protocolType = r.protocolType();
        protocols = r.protocols();
        lastHeartbeatMs = now;
    }

    byte[] metadata(String protocol) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return NONE;
    }

    boolean sameProtocols(List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            Protocol a = protocols.get(i);
            Protocol b = other.get(i);
            if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) {
                return false;
            }
        }
        return true;
    }
}
