/**
 * How a Kafka record is kept as a Queen message payload, written and read by the Kafka listener and shown by the
 * message browse. Depends on nothing of the broker but api's JSON mapper.
 */
package io.queen.envelope;
