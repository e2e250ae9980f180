/**
 * Several brokers as one Kafka cluster: the registry of Kafka node ids and the choice of leaders and coordinators.
 */
package io.queen.kafka.cluster;
