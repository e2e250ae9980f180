/**
 * The Kafka listener: the transport (listener, connection, dispatcher, session, SASL) and the API providers for
 * topics, Produce, Fetch, ListOffsets and configs. Requests and answers are kafka-clients' message classes; records
 * reach the log through {@link io.queen.push.LogWriter}.
 */
package io.queen.kafka;
