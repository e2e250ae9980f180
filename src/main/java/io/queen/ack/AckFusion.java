package io.queen.ack;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.config.QueenConfig;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;

/**
 * Commits positional acks of many concurrent requests in one transaction ({@code queen.log_ack_multi_v1}): group
 * commit without a timer. A request queues its acks; if fewer than {@code queen.ack.fusion-max-inflight} flushes
 * are running, the calling thread becomes a flusher and commits everything queued so far (see {@link #drain}).
 * While a flush waits on its commit (fsync), the next requests accumulate, so the number of acks per commit grows
 * with load and a lone ack still commits in one round trip.
 * Thread-safe; called on virtual threads (a flusher blocks on JDBC).
 */
@Singleton
public class AckFusion {
    /** Inputs per transaction at most. */
    static final int MAX_ROWS = 2000;

    /** One positional ack: commit (partition, group) up to {@code upTo} under lease {@code worker}. */
    public record Positional(UUID partitionId, String group, long upTo, String worker) {
    }

    /**
     * ok: committed; released: the lease ended with it; idle: released, and the partition held nothing past the
     * ack when it ran (it freed no claimable work). Not ok: nothing changed (take the decision procedure).
     */
    public record Verdict(boolean ok, boolean released, boolean idle) {
    }

    private record Pending(List<Positional> acks, CompletableFuture<List<Verdict>> done) {
    }

    private final AckStore store;
    private final Semaphore slots;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final Counter commits;
    private final Counter rows;

    AckFusion(AckStore store, QueenConfig config, MeterRegistry registry) {
        this.store = store;
        this.slots = new Semaphore(Math.max(1, config.ack().fusionMaxInflight()));
        this.commits = Counter.builder("queen.ack.fused.commits").description("ack fusion transactions")
                .register(registry);
        this.rows = Counter.builder("queen.ack.fused.batches")
                .description("positional (partition, lease) acks committed by ack fusion").register(registry);
    }

    /** Blocks until the acks are committed (or refused); one verdict per input, in input order. */
    public List<Verdict> commit(List<Positional> acks) throws SQLException {
        Pending p = new Pending(acks, new CompletableFuture<>());
        queue.add(p);
        drain(p);
        try {
            return p.done().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the ack commit", "57014", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException s) {
                throw s;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * The caller flushes while its own acks are pending and a slot is free. It leaves once they are committed,
     * so a request never keeps serving others; whatever is still queued then goes to a fresh virtual thread.
     * Every slot holder looks at the queue after releasing, so an ack queued while all slots were busy is
     * always picked up.
     */
    private void drain(Pending mine) {
        while (!mine.done().isDone() && !queue.isEmpty() && slots.tryAcquire()) {
            try {
                flushQueued();
            } finally {
                slots.release();
            }
        }
        if (!queue.isEmpty() && slots.availablePermits() > 0) {
            Thread.ofVirtual().name("ack-fusion").start(this::drainAll);
        }
    }

    private void drainAll() {
        while (!queue.isEmpty() && slots.tryAcquire()) {
            try {
                flushQueued();
            } finally {
                slots.release();
            }
        }
    }

    private void flushQueued() {
        List<Pending> batch = new ArrayList<>();
        int n = 0;
        Pending p;
        while (n < MAX_ROWS && (p = queue.poll()) != null) {
            batch.add(p);
            n += p.acks().size();
        }
        if (!batch.isEmpty()) {
            flush(batch, n);
        }
    }

    private void flush(List<Pending> batch, int n) {
        List<Positional> all = new ArrayList<>(n);
        for (Pending p : batch) {
            all.addAll(p.acks());
        }
        try {
            List<Verdict> verdicts = store.ackMulti(all);
            commits.increment();
            rows.increment(verdicts.stream().filter(Verdict::ok).count());
            int at = 0;
            for (Pending p : batch) {
                p.done().complete(verdicts.subList(at, at + p.acks().size()));
                at += p.acks().size();
            }
        } catch (SQLException | RuntimeException e) {
            for (Pending p : batch) {
                p.done().completeExceptionally(e);
            }
        }
    }
}
