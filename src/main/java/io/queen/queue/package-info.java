/**
 * Queues: configuration, purge, delete (and who must hear of a delete, {@link io.queen.queue.QueueDeletion}), names
 * and flags.
 */
package io.queen.queue;
