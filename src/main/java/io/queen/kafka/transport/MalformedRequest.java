package io.queen.kafka.transport;

/** A request frame that cannot be parsed: its connection is closed (what Apache Kafka does too). */
final class MalformedRequest extends Exception {
    MalformedRequest(String message) {
        super(message, null, false, false);
    }
}
