package io.queen.config;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import java.util.OptionalLong;

/**
 * Typed broker configuration. Defaults live in {@code application.properties} (one place; a computed default
 * says there where it is computed), where each key is also bound to the reference broker's environment variable
 * name so its deployment docs apply unchanged.
 */
@ConfigMapping(prefix = "queen")
public interface QueenConfig {

    /** zstd level used for every segment blob ({@code QUEEN_V2_ZSTD_LEVEL}). */
    int zstdLevel();

    /** Apply {@code db/*.sql} at boot ({@code QUEEN_APPLY_SCHEMA}). */
    boolean applySchema();

    /** The tenant every request belongs to while multi-tenancy is off. */
    String defaultTenant();

    /**
     * This broker's worker id ({@code QUEEN_WORKER_ID}) in {@code /health} and metric rows; unset = registered in
     * the database ({@code io.queen.workers.WorkerRegistry}).
     */
    java.util.OptionalInt workerId();

    /** AES-256-GCM key for queues with encryptionEnabled: 64 hex characters ({@code QUEEN_ENCRYPTION_KEY}). */
    java.util.Optional<String> encryptionKey();

    /** Statement timeout applied to broker SQL calls, in milliseconds. */
    int statementTimeoutMs();

    Push push();

    Pop pop();

    Ack ack();

    Retention retention();

    Compaction compaction();

    /** The compaction duty of compacted queues ({@code io.queen.compaction}) and the topic defaults it applies. */
    interface Compaction {
        /** Cadence of the duty ({@code QUEEN_COMPACTION_INTERVAL_MS}). */
        long intervalMs();

        /** Due partitions compacted per cycle, most dirty first. */
        int partitionsPerCycle();

        /** Records one pass over a partition reads at most (whole segments; at least one segment). */
        int maxRecordsPerPass();

        /** Raw bytes of one segment a pass writes when it merges adjacent segments. */
        MemorySize maxSegmentBytes();

        /** {@code min.compaction.lag.ms} of a queue that sets none. */
        long minCompactionLagMs();

        /** {@code max.compaction.lag.ms} of a queue that sets none. */
        long maxCompactionLagMs();

        /** {@code delete.retention.ms} of a queue that sets none. */
        long deleteRetentionMs();

        /** {@code min.cleanable.dirty.ratio} of a queue that sets none. */
        double minCleanableDirtyRatio();
    }

    Maintenance maintenance();

    Shutdown shutdown();

    Live live();

    /** The console's live figures ({@code io.queen.live}). */
    interface Live {
        /** How often this broker publishes its recent rates and lease clients ({@code QUEEN_LIVE_PUBLISH_MS}). */
        long publishMs();

        /** The span the live rates are measured over ({@code QUEEN_LIVE_WINDOW_MS}). */
        long windowMs();
    }

    Tracing tracing();

    /** Broker spans over OpenTelemetry ({@code io.queen.tracing}, docs/operating.md "Traces"). */
    interface Tracing {
        /** Emit spans at all ({@code QUEEN_TRACING_ENABLED}, default false: then no span is built). */
        boolean enabled();

        /** OTLP/HTTP base URL; spans go to its {@code /v1/traces} ({@code QUEEN_TRACING_OTLP_ENDPOINT}). */
        String otlpEndpoint();

        /**
         * Share of new traces sampled, 0-1 ({@code QUEEN_TRACING_SAMPLE_RATIO}); a request or message that
         * comes with a trace context follows its sampled flag.
         */
        double sampleRatio();

        /** The {@code service.name} resource attribute ({@code QUEEN_TRACING_SERVICE_NAME}). */
        String serviceName();

        /** Most span links one push, pop or produce span records to the messages' own traces. */
        int maxLinks();
    }

    Kafka kafka();

    /** The Kafka wire-protocol listener ({@code io.queen.kafka}, docs/kafka.md). */
    interface Kafka {
        /** Listen for Kafka clients at all ({@code QUEEN_KAFKA_ENABLED}, default false). */
        boolean enabled();

        /** Listening port ({@code QUEEN_KAFKA_PORT}, default 9092; 0 = any free port). */
        int port();

        /** Listening address ({@code QUEEN_KAFKA_HOST}, default 0.0.0.0). */
        String host();

        /** Host name Metadata gives clients for this broker; unset = the machine's host name. */
        java.util.Optional<String> advertisedHost();

        /** Port Metadata gives clients for this broker; unset = the listening port. */
        java.util.OptionalInt advertisedPort();

        /** Largest request frame accepted; a larger one closes its connection. */
        MemorySize maxFrameBytes();

        /**
         * Largest record batch a Produce may carry (Apache Kafka's {@code message.max.bytes}); a larger one is
         * answered MESSAGE_TOO_LARGE for its partition, the request's other partitions are written.
         */
        MemorySize maxBatchBytes();

        /**
         * Most bytes one record batch of a Produce may hold once decompressed (its records as they were before
         * compression): {@link #maxBatchBytes} bounds a batch as sent, and a compressed batch of a few KB can
         * inflate to gigabytes. Decompression stops at the first byte beyond it and the partition is answered
         * MESSAGE_TOO_LARGE.
         */
        MemorySize maxDecompressedBatchBytes();

        /** Most decompressed bytes of all the record batches of one Produce; beyond it, MESSAGE_TOO_LARGE. */
        MemorySize maxDecompressedRequestBytes();

        /** Most records one record batch of a Produce may count; beyond it, MESSAGE_TOO_LARGE. */
        int maxBatchRecords();

        /** Most records all the record batches of one Produce may count; beyond it, MESSAGE_TOO_LARGE. */
        int maxRequestRecords();

        /** A Metadata or Produce request naming an unknown topic creates it (Apache Kafka's default). */
        boolean autoCreateTopics();

        /**
         * The dedup window of a topic created through Kafka (its queue's {@code dedupWindowSeconds}): how long a retried
         * batch of an idempotent producer is recognised; 0 = no dedup.
         */
        int dedupWindowSeconds();

        /** Partition count of a topic created without one (auto-created, or CreateTopics with -1). */
        int defaultPartitions();

        /** Requests read ahead on one connection before the broker stops reading it until answers go out. */
        int maxInflightPerConnection();

        /**
         * Milliseconds a connection has to send its first whole request after being accepted, and each later
         * request after its first byte; beyond, it is closed. 0 = no limit.
         */
        long readTimeoutMs();

        /**
         * Milliseconds a connection with nothing pending may stay silent before it is closed (Apache Kafka's
         * {@code connections.max.idle.ms}); 0 = no limit.
         */
        long idleTimeoutMs();

        /**
         * This broker's Kafka node id ({@code QUEEN_KAFKA_NODE_ID}); unset = the id this advertised address held
         * before, else a new one ({@code io.queen.kafka.cluster.BrokerRegistry}).
         */
        java.util.OptionalInt nodeId();

        /** The rack Metadata reports for this broker ({@code QUEEN_KAFKA_RACK}); unset = none. */
        java.util.Optional<String> rack();

        /** How often this broker renews its registration and re-reads the live brokers, in milliseconds. */
        int brokerHeartbeatMs();

        /** How long a broker stays live after its last heartbeat (a killed broker drops out after this). */
        int brokerSessionTimeoutMs();
    }

    /** What a broker does between SIGTERM and exit ({@code io.queen.shutdown.GracefulShutdown}). */
    interface Shutdown {
        /**
         * Upper bound from SIGTERM to process exit, in milliseconds ({@code QUEEN_SHUTDOWN_TIMEOUT_MS}, default
         * 25000: inside Kubernetes' default 30 s grace period, with room for the JVM to exit before SIGKILL).
         * Requests still running when it is up are cut off and unreleased leases expire on their own.
         */
        long timeoutMs();

        /**
         * Time between SIGTERM and the drain during which the broker keeps serving while readiness already
         * answers 503, so a load balancer stops routing to it first ({@code QUEEN_SHUTDOWN_DELAY_MS}, default 0;
         * counted inside the timeout).
         */
        long delayMs();
    }

    interface Maintenance {
        /** How often each broker re-reads the cluster-wide maintenance switches: a switch reaches it within this. */
        long pollMs();

        /**
         * This broker's push spool directory ({@code QUEEN_SPOOL_DIR}, default {@code ~/.queen/spool/<port>});
         * one broker per directory.
         */
        String spoolDir();

        /** Buffered pushes replayed per drain transaction batch. */
        int drainBatch();

        /** How long a push arriving while the spool still drains waits for it before it is spooled too. */
        long drainWaitMs();
    }
    Metrics metrics();

    interface Push {
        /** Fusion shards; a (queue, partition) always maps to the same shard. */
        int fusionShards();

        /** Ready partitions committed together in one transaction. */
        int bundleMax();

        /** Bundles in flight per shard. */
        int maxInflightBundles();

        /**
         * Push commits in flight across all shards from which on a shard with a commit in flight lets Kafka writes
         * wait for it instead of starting another ({@code io.queen.push.CommitLoad}); 0 = never.
         */
        int busyCommits();

        /** How long one push commit counts towards {@link #busyCommits} at most. */
        long commitHoldMs();

        /**
         * How often idle partitions' write state is swept ({@code PushFusion.sweepRound}): after dedup indexes were
         * refused for lack of budget, the longest a quiet queue holds hashes a busy one needs.
         */
        long laneSweepMs();

        /**
         * Transaction hashes the broker-side dedup indexes may hold in total (24-40 bytes of heap each). Unset:
         * 12M, capped so the indexes fit in a quarter of the maximum heap ({@code PushFusion.dedupBudget}).
         */
        OptionalLong dedupCacheEntries();

        /** Items accepted in one push request (400 above). */
        int maxItems();
    }

    interface Pop {
        int defaultTimeoutMs();

        int maxTimeoutMs();

        /** Start point of a named group's first contact when the pop names none: {@code new} or {@code all}. */
        String defaultSubscriptionMode();

        /** Safety bound on how long a parked pop waits without a wake-up or a due lease expiry (a lost wake-up). */
        int recheckIntervalMs();

        int maxBatch();

        /**
         * Bound on one pop answer's size: a pop returns fewer messages than its batch when the next one would pass
         * it (always at least one, whatever its size); the rest stays available to the next pop.
         */
        MemorySize maxResponseBytes();

        /** Minimum spacing of this broker's NOTIFY rounds announcing commits to other brokers' parked pops. */
        int notifyIntervalMs();

        /**
         * Long polls one client address may have waiting at once (each HTTP/2 stream counts); beyond it a long poll
         * is answered 204 at once, without database work. 0 = no cap.
         */
        int maxParkedPerAddress();

        /** Long polls waiting at once on this broker, all addresses together; beyond it 204 at once. 0 = no cap. */
        int maxParked();

        /**
         * Queues this broker keeps wake-up state for while nothing waits on them; past it, the state of every such
         * queue is dropped (names of queues that do not exist, popped or fetched, would otherwise grow it forever).
         */
        int maxTrackedQueues();
    }

    interface Ack {
        /** (lease, partition) batches remembered for positional acks; 0 = every ack takes the decision procedure. */
        int registryEntries();

        /** Concurrent ack-fusion transactions; acks arriving meanwhile wait and share the next one. */
        int fusionMaxInflight();
    }

    interface Retention {
        /** Cadence of the retention loop ({@code RETENTION_INTERVAL}). */
        long intervalMs();

        /** Rows (segments, sidecar rows, partitions) per step; each step is one short transaction. */
        int batchSize();

        /** Workers running the steps of one cycle in parallel (1..16). */
        int parallelism();

        /** Partitions taken per queue and rule per cycle; 0 = batch size x parallelism x 5. */
        int dueCap();

        /** Empty partitions inactive this many days are deleted. */
        int partitionCleanupDays();

        boolean partitionCleanupEnabled();

        /** Partition cleanup runs on its own, slower cadence (a scan of the candidates, not a watermark probe). */
        long partitionCleanupIntervalMs();
    }

    interface Metrics {
        /**
         * How often this broker writes its per-minute counters and system sample ({@code QUEEN_METRICS_FLUSH_MS}).
         * The default 60000 is aligned to wall-clock minutes; other values run at a fixed delay (tests).
         */
        long flushMs();

        /** Days of per-minute rows kept; the retention loop purges older ones ({@code QUEEN_METRICS_RETENTION_DAYS}). */
        int retentionDays();

        /**
         * Distinct queue labels this broker tracks (memory, bucket rows, Prometheus series); activity of further
         * queues is summed under queue {@code _other} ({@code QUEEN_METRICS_MAX_QUEUES}).
         */
        int maxQueues();

        /**
         * Distinct consumer-group labels of the Prometheus lag gauges (the groups with the largest lag); the lag of
         * further groups is summed under group {@code _other} ({@code QUEEN_METRICS_MAX_GROUPS}, at least 0).
         */
        int maxGroups();

        /** Broker identity in metric rows; unset = the machine's host name ({@code QUEEN_HOSTNAME}). */
        java.util.Optional<String> hostname();
    }
}
