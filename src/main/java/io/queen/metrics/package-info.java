/**
 * In-memory counters of operations per queue and their Prometheus exposition.
 */
package io.queen.metrics;
