package io.queen.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Named run shapes. A preset is a set of flag values applied over the defaults; flags given
 * explicitly on the command line still win over the preset.
 */
public enum Preset {
    SMOKE("smoke", "quick correctness run: 1 queue, 4 partitions, 2 producers, 2 consumers, 3,000 messages",
            "queues", "1", "partitions", "4", "producers", "2", "consumers", "2",
            "messages", "3000", "verify", "true", "warmup", "0"),
    PUSH_ONLY("push-only", "producers only (no consumers): raw push throughput and push latency",
            "consumers", "0"),
    SOAK("soak", "reference soak shape scaled to 2 cores: 1 queue, 200 partitions, 256 B, push batch 100,"
            + " pop batch 1000, explicit acks, dedup window 60 s, retention on, 300 s",
            "queues", "1", "partitions", "200", "payload-bytes", "256", "push-batch", "100",
            "pop-batch", "1000", "ack", "explicit", "dedup-window", "60", "retention", "true",
            "duration", "300"),
    LATENCY("latency", "the soak shape (1 queue, 200 partitions, 256 B, push batch 100, pop batch 1000, explicit acks,"
            + " dedup window 60 s, retention on) at a steady 5,000 msg/s, consumers popping the queue (wildcard), 120 s",
            "queues", "1", "partitions", "200", "payload-bytes", "256", "push-batch", "100",
            "pop-batch", "1000", "ack", "explicit", "dedup-window", "60", "retention", "true",
            "rate", "5000", "wildcard", "true", "duration", "120"),
    DRAIN("drain", "push 100k messages (50 partitions, batch 100, 8 producers), then drain with 8 consumers"
            + " batch 100; push and pop+ack rates reported separately",
            "messages", "100000", "partitions", "50", "push-batch", "100", "producers", "8",
            "consumers", "8", "pop-batch", "100", "phased", "true", "warmup", "0", "drain-timeout", "300"),
    JOBS("jobs", "a job queue: 1 queue, 32 partitions, 256 B; one producer at a steady 500 jobs/s pushing what"
            + " arrived since its last push (at most 128); 8 workers popping the queue (wildcard) 8 at a time,"
            + " 1 ms of work per job, one batch ack per pop; pickup latency measured; 60 s",
            "queues", "1", "partitions", "32", "payload-bytes", "256", "producers", "1", "rate", "500",
            "push-batch", "128", "arrival-batches", "true", "consumers", "8", "pop-batch", "8", "wildcard", "true",
            "work-ms", "1", "ack", "explicit", "pickup-latency", "true", "duration", "60", "drain-timeout", "300");

    private final String id;
    private final String description;
    private final Map<String, String> values;

    Preset(String id, String description, String... kv) {
        this.id = id;
        this.description = description;
        var m = new LinkedHashMap<String, String>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        this.values = java.util.Collections.unmodifiableMap(m);
    }

    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    /** Flag name (without {@code --}) to value. */
    public Map<String, String> flags() {
        return values;
    }

    public static Optional<Preset> byId(String id) {
        return Arrays.stream(values()).filter(p -> p.id.equals(id)).findFirst();
    }
}
