/**
 * Acknowledgements: the ack routes, the positional fast path that commits a whole delivered batch ({@link
 * io.queen.ack.AckFusion}) and the decision procedure for everything else ({@link io.queen.ack.AckService}), lease
 * renewal, and the transaction route that acks and pushes in one PostgreSQL transaction.
 */
package io.queen.ack;
