package io.queen.bench;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What the load loop needs from a system under test. {@link QueenDriver} speaks Queen's HTTP API;
 * {@link BaselineDriver} is a row-per-message queue implemented directly on PostgreSQL.
 * Sessions are used by one worker (virtual thread) each.
 */
public interface Driver extends AutoCloseable {

    /** A (queue, partition) address. {@code key} identifies it uniquely inside the run. */
    record Target(String queue, String partition) {
        public String key() {
            return queue + "/" + partition;
        }
    }

    /** One message to push. */
    record OutMessage(String transactionId, String payload) {}

    enum PushStatus { QUEUED, BUFFERED, DUPLICATE, FAILED }

    /** Per-item push outcome; {@code errorKind} is set for anything but QUEUED/BUFFERED. */
    record PushOutcome(PushStatus status, String errorKind) {}

    /**
     * A delivered message. {@code partitionKey} names the partition for order checks; {@code data} is the
     * payload (parsed); {@code ackHandle} is what the driver needs to ack it.
     */
    record Delivery(String transactionId, String partitionKey, Payloads.Stamp stamp, Object ackHandle) {}

    /** A pop result: empty list = nothing delivered. {@code errorKind} set when the pop failed. */
    record PopResult(List<Delivery> deliveries, String errorKind) {
        static final PopResult EMPTY = new PopResult(List.of(), null);

        static PopResult error(String kind) {
            return new PopResult(List.of(), kind);
        }
    }

    /** Per-item ack outcome, in the order of the deliveries passed to ack. */
    record AckOutcome(boolean success, String errorKind) {}

    interface ProducerSession extends AutoCloseable {
        List<PushOutcome> push(Target target, List<OutMessage> batch);

        @Override
        default void close() {}
    }

    interface ConsumerSession extends AutoCloseable {
        /**
         * Pops from {@code target} ({@code null} with a wildcard {@code queue}: any partition of that queue).
         * {@code waitMs > 0} long-polls up to that long.
         */
        PopResult pop(String queue, Target target, int batch, int waitMs);

        /** Explicitly acknowledges the deliveries (only called with {@code --ack explicit}). */
        List<AckOutcome> ack(List<Delivery> deliveries);

        @Override
        default void close() {}
    }

    /**
     * Figures about bytes stored, measured by the driver. {@code bytesPerMessage}: what the store holds for the
     * run's messages (Queen: segment blobs + sidecar hashes after compression; baseline: its whole table);
     * {@code diskBytesPerMessage}: on-disk bytes (heap, TOAST, indexes) per message, the baseline's only measure and
     * Queen's relation growth during the run (row headers, TOAST chunking and page fill included).
     */
    record Storage(Long bytes, Long messages, Double bytesPerMessage, Double diskBytesPerMessage, String note) {
        static Storage unavailable(String note) {
            return new Storage(null, null, null, null, note);
        }
    }

    String name();

    /** Creates/configures whatever the run needs (queues, schema). Throws when the target is unusable. */
    void setup(List<Target> targets) throws Exception;

    ProducerSession producer(int id) throws Exception;

    ConsumerSession consumer(int id, String group) throws Exception;

    /** Broker-side counters (Prometheus) for segment figures; empty (the default) when not applicable. */
    default Map<String, Double> counters() {
        return Map.of();
    }

    /** Storage measurement after the push phase (baseline) — {@code null} when measured at the end. */
    Storage storageAfterPush(long pushed);

    /** Storage measurement at the end of the run (Queen) — {@code null} (default) when measured after the push. */
    default Storage storageAtEnd(long pushed) {
        return null;
    }

    /** The broker process to account for, or {@code null} (the default: the baselines have no broker process). */
    default Long brokerPid() {
        return null;
    }

    /** Removes the run's queues / schema. */
    void cleanup();

    /** Releases what the driver holds beyond the run's data; nothing by default. */
    @Override
    default void close() {}

    /** One read of a polled pop: the deliveries found, in order (empty = none yet). */
    interface PollRead {
        List<Delivery> read() throws SQLException;
    }

    /**
     * A pop by polling: reads until a read finds deliveries or {@code waitMs} is over (0 = one read), sleeping
     * {@code intervalMs} between reads. A SQL error or an interrupt is the pop's error.
     */
    static PopResult poll(int waitMs, long intervalMs, PollRead read) {
        long deadline = System.nanoTime() + waitMs * 1_000_000L;
        try {
            while (true) {
                List<Delivery> out = read.read();
                if (!out.isEmpty()) {
                    return new PopResult(out, null);
                }
                if (waitMs <= 0 || System.nanoTime() >= deadline) {
                    return PopResult.EMPTY;
                }
                Thread.sleep(intervalMs);
            }
        } catch (SQLException e) {
            return PopResult.error("pop-sql-" + e.getSQLState());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PopResult.error("pop-interrupted");
        }
    }

    /** The outcome of a push of {@code n} messages that all went in. */
    static List<PushOutcome> queued(int n) {
        return repeat(n, new PushOutcome(PushStatus.QUEUED, null));
    }

    /** The outcome of a push of {@code n} messages whose statement failed. */
    static List<PushOutcome> pushFailed(int n, SQLException e) {
        return repeat(n, new PushOutcome(PushStatus.FAILED, "push-sql-" + e.getSQLState()));
    }

    /** {@code n} copies of one outcome (a batch that succeeded or failed as a whole). */
    static <T> List<T> repeat(int n, T v) {
        var out = new java.util.ArrayList<T>(n);
        for (int i = 0; i < n; i++) {
            out.add(v);
        }
        return out;
    }
}
