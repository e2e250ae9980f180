/**
 * Log compaction of compacted queues (Kafka's cleanup.policy compact): the duty that rewrites a partition's sealed
 * segments keeping the latest record of each key, leaving holes where records went so offsets never change.
 */
package io.queen.compaction;
