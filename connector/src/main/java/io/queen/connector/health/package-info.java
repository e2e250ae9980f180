/**
 * Channel health and metrics, and the trace ids carried from the broker.
 */
package io.queen.connector.health;
