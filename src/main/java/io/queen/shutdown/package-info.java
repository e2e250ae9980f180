/**
 * Graceful shutdown: readiness down, admission closed, requests in flight drained and this broker's leases released.
 */
package io.queen.shutdown;
