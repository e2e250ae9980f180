package io.queen.kafka.group;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.config.QueenConfig;
import io.queen.live.KafkaGroupMembers;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/** The members view's Kafka groups, read from this broker's {@link GroupCoordinator}. Stateless. */
@Singleton
class CoordinatedGroupMembers implements KafkaGroupMembers {
    private final QueenConfig config;
    private final Instance<GroupCoordinator> coordinator;

    CoordinatedGroupMembers(QueenConfig config, Instance<GroupCoordinator> coordinator) {
        this.config = config;
        this.coordinator = coordinator;
    }

    @Override
    public ObjectNode describe(UUID tenant, String group) {
        // with the listener off the coordinator is never created (it runs a timer thread)
        GroupCoordinator.GroupSnapshot snap = config.kafka().enabled() ? coordinator.get().snapshot(tenant, group)
                : null;
        if (snap == null) {
            return null;
        }
        ObjectNode k = Json.MAPPER.createObjectNode();
        k.put("state", snap.state());
        k.put("protocolType", snap.protocolType());
        k.put("protocol", snap.protocol());
        ArrayNode members = k.putArray("members");
        for (GroupCoordinator.MemberSnapshot m : snap.members()) {
            ObjectNode o = members.addObject();
            o.put("memberId", m.memberId());
            o.put("groupInstanceId", m.instanceId());
            o.put("clientId", m.clientId());
            o.put("clientHost", m.clientHost());
            ArrayNode a = o.putArray("assignments");
            for (TopicPartition tp : m.assigned()) {
                a.addObject().put("topic", tp.topic()).put("partition", tp.partition());
            }
            o.put("joinedAt", Times.millis(m.joinedAt()));
        }
        return k;
    }
}
