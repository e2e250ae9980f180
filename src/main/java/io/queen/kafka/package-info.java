/**
 * The Kafka listener's API providers for topics, Produce, Fetch, ListOffsets and configs, registered in the
 * transport's dispatch table ({@code io.queen.kafka.transport}). Requests and answers are kafka-clients' message classes; records
 * reach the log through {@link io.queen.push.LogWriter}.
 */
package io.queen.kafka;
