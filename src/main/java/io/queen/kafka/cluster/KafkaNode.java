package io.queen.kafka.cluster;

/** One live broker as Kafka clients see it: its node id, the address it advertises, its rack (null: none). */
public record KafkaNode(int id, String host, int port, String rack) {
}
