/**
 * Pops: the pop routes, the claim of a leased batch ({@link io.queen.pop.PopClaims}), long polling on the wake-up
 * signals ({@link io.queen.pop.LongPoll}) on an injected clock ({@link io.queen.pop.PopClock}), and the due times
 * parked pops share.
 */
package io.queen.pop;
