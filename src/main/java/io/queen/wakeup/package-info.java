/**
 * Wake-ups of parked long-polling pops: signals by queue and tenant on this broker
 * ({@link io.queen.wakeup.PopWaiters}), the NOTIFY publisher that tells other brokers
 * ({@link io.queen.wakeup.WakePublisher}) and the one LISTEN connection that hears them
 * ({@link io.queen.wakeup.WakeListener}). Depends only on config and the datasource: every package that parks or
 * frees work may use it.
 */
package io.queen.wakeup;
