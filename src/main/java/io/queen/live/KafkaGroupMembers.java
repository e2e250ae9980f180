package io.queen.live;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;

/**
 * The members of a Kafka group this broker coordinates, for {@link GroupMembersResource}. The Kafka listener
 * implements it, so this package shows Kafka groups without depending on the listener.
 */
public interface KafkaGroupMembers {
    /**
     * The group's state, protocol type and name and its members (member and client id, host, assigned partitions,
     * since when), or null when the listener is off or this broker holds no membership of that name.
     */
    ObjectNode describe(UUID tenant, String group);
}
