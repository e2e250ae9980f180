package io.queen.bench;

import java.util.List;

/**
 * One fully resolved run configuration (defaults, then the preset, then the explicit flags).
 * Built by {@link Cli}; every field corresponds to one command-line flag.
 */
public record Config(
        String url,
        String queue,
        int queues,
        int partitions,
        int payloadBytes,
        int pushBatch,
        int producers,
        int popBatch,
        int consumers,
        int groups,
        AckMode ack,
        double rate,
        int duration,
        long messages,
        int warmup,
        int dedupWindow,
        boolean retention,
        int minPopWaitMs,
        String preset,
        String json,
        boolean verify,
        Long brokerPid,
        List<Long> pgPids,
        Mode mode,
        String pgUrl,
        int popWaitMs,
        boolean wildcard,
        boolean phased,
        int drainTimeout,
        int timeLimit,
        boolean cleanup,
        boolean help,
        boolean randomPad,
        boolean multiRowInsert,
        String token,
        double workMs,
        boolean arrivalBatches,
        boolean pickupLatency) {

    public enum AckMode { EXPLICIT, AUTO }

    public enum Mode { QUEEN, BASELINE, BOTH, PGMQ }

    /** True when a pop acknowledges what it delivers ({@code --ack auto}). */
    public boolean autoAck() {
        return ack == AckMode.AUTO;
    }

    /** True when the run is bounded by a message count rather than by {@link #duration}. */
    public boolean messageBounded() {
        return messages > 0;
    }

    /** Open loop: producers pace themselves to {@link #rate} msgs/s (across all producers). */
    public boolean openLoop() {
        return rate > 0;
    }

    /** Nanoseconds a consumer spends on {@code n} delivered messages before it acks them ({@code --work-ms}). */
    public long workNanos(int n) {
        return Math.round(workMs * 1e6 * n);
    }

    /** Names of the consumer groups; queue mode is a single group with the name {@code null}. */
    public List<String> groupNames() {
        if (groups <= 0) {
            return java.util.Collections.singletonList(null);
        }
        var names = new java.util.ArrayList<String>(groups);
        for (int i = 0; i < groups; i++) {
            names.add("g" + i);
        }
        return names;
    }
}
