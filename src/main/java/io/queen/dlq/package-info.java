/**
 * Dead letters: the DLQ routes (list, delete, bulk operations) and the replay of a dead letter into its queue.
 */
package io.queen.dlq;
