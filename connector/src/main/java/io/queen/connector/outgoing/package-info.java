/**
 * The outgoing channel: messages pushed to the broker, in batches.
 */
package io.queen.connector.outgoing;
