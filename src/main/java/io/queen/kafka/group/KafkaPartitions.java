package io.queen.kafka.group;

/** Kafka partition number ↔ Queen partition name ({@code n} ↔ {@code "n"}). Stateless. */
final class KafkaPartitions {
    private KafkaPartitions() {
    }

    /**
     * The Kafka partition number a Queen partition name stands for, or -1 when it stands for none (not the
     * canonical decimal text of a non-negative int: "Default", "01", "-1").
     */
    static int number(String name) {
        int n = name.length();
        if (n == 0 || n > 10 || (n > 1 && name.charAt(0) == '0')) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v > Integer.MAX_VALUE ? -1 : (int) v;
    }
}
