/**
 * Kafka share groups (KIP-932) on Queen's consumption model: ShareGroupHeartbeat and ShareGroupDescribe (membership
 * and assignment, held by the group's coordinator), ShareFetch and ShareAcknowledge (records acquired under locks
 * and acknowledged one by one, the state in PostgreSQL beside the group's cursor), and the group configs of a
 * GROUP resource. A REJECT or an exhausted delivery count files the record in Queen's dead-letter table.
 */
package io.queen.kafka.share;
