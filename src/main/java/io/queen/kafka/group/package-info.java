/**
 * Kafka consumer groups on the wire listener: the classic group protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) coordinated by {@link io.queen.kafka.group.ClassicGroups}, the consumer group protocol of KIP-848
 * (ConsumerGroupHeartbeat, ConsumerGroupDescribe; broker-side assignors) by
 * {@link io.queen.kafka.group.ConsumerGroups}, each group's state saved in PostgreSQL so another broker can continue
 * it, and the group administration and offset APIs, offsets being Queen cursors.
 */
package io.queen.kafka.group;
