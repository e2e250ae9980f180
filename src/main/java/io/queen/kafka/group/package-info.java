/**
 * Kafka consumer groups on the wire listener: the classic group protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) coordinated by {@link io.queen.kafka.group.ClassicGroups}, each group's state saved in PostgreSQL so
 * another broker can continue it, and the group administration and offset APIs, offsets being Queen cursors.
 */
package io.queen.kafka.group;
