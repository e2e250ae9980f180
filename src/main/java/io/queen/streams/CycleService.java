package io.queen.streams;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.queen.tracing.BrokerTracing;
import jakarta.inject.Inject;
import io.queen.ack.AckService;
import io.queen.ack.AckStore;
import io.queen.api.ErrorMappers;
import io.queen.metrics.OpsMeter;
import io.queen.push.LogWriter;
import io.queen.segment.TransactionHash;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Runs one stream cycle in ONE PostgreSQL transaction: (1) serialize the (query, partition) shard and check the
 * partition belongs to the query's source queue, (2) apply the state ops, (3) push the sink items, (4) ack the
 * source under the cycle's lease (or, without an ack, hold the cursor row against deletion). Locks follow the
 * global order: sink partition rows (ascending id, inside the push) before the source cursor row. Any failure
 * rolls everything back. A cycle repeated after a lost answer finds its lease already released and writes nothing.
 * Thread-safe (stateless).
 */
@ApplicationScoped
public class CycleService {
    private static final Logger LOG = Logger.getLogger(CycleService.class);
    /** The answer to a cycle whose ack was already committed (a replay after a lost answer). */
    public static final String ALREADY_COMMITTED = "Message already committed";

    @Inject StreamsStore store;
    @Inject AckStore ackStore;
    @Inject AckService acks;
    @Inject SinkWriter sink;
    @Inject LogWriter writer;

    @Inject OpsMeter meter;
    @Inject BrokerTracing tracing;

    /** {@code badRequest}: the failure is the request's (400); otherwise a rolled-back cycle (200). */
    /** {@code sourceQueue}: the queue the acked partition belongs to (null for a failed cycle). */
    public record Outcome(boolean success, boolean badRequest, String error, int stateOpsApplied,
            List<SinkWriter.Result> pushes, AckResult ack, String sourceQueue) {
        static Outcome failed(boolean badRequest, String error) {
            return new Outcome(false, badRequest, error, 0, List.of(), null, null);
        }
    }

    public record AckResult(long count, boolean leaseReleased, boolean dlq) {
    }

    private static final class Rollback extends Exception {
        final boolean badRequest;

        Rollback(boolean badRequest, String message) {
            super(message, null, false, false);
            this.badRequest = badRequest;
        }
    }

    public Outcome run(UUID tenant, CycleRequest r) throws SQLException {
        Span span = tracing.start("queen stream cycle", SpanKind.SERVER, null);
        return BrokerTracing.within(span, () -> {
            Outcome o = inTransaction(tenant, r);
            if (!o.success()) {
                span.setStatus(StatusCode.ERROR, o.error());
            }
            return o;
        });
    }

    private Outcome inTransaction(UUID tenant, CycleRequest r) throws SQLException {
        Outcome out;
        LogWriter.InTransaction log;
        try (Connection c = ackStore.transaction()) {
            log = writer.inTransaction(c, tenant);
            try {
                out = inTransaction(c, log, r);
                c.commit();
            } catch (Rollback e) {
                c.rollback();
                LOG.debugf("stream cycle rolled back: %s", e.getMessage());
                return Outcome.failed(e.badRequest, e.getMessage());
            } catch (SQLException e) {
                c.rollback();
                if (ErrorMappers.isUnavailable(e)) {
                    throw e;
                }
                // the database refused a part of the cycle (a constraint, a trigger, a deadlock victim): the
                // whole cycle is undone and the client is told why
                LOG.debugf("stream cycle failed in SQL: %s", e.getMessage());
                return Outcome.failed(false, "cycle rolled back: " + e.getMessage());
            } catch (RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
        count(tenant, r, out);
        log.committed();
        return out;
    }

    /**
     * A committed cycle's traffic in the per-minute counters, as the push and ack routes count theirs: one push
     * request per sink queue it wrote (its stored messages are counted by {@link LogWriter.InTransaction#committed});
     * one ack request on the source queue and the messages
     * it acknowledged (a positive ack covers {@code count} messages) or the failure it reported.
     */
    private void count(UUID tenant, CycleRequest r, Outcome out) {
        List<String> seen = new ArrayList<>(2);
        for (SinkWriter.Result p : out.pushes()) {
            if (!seen.contains(p.item().queue())) {
                seen.add(p.item().queue());
                meter.queue(tenant, p.item().queue()).increment(OpsMeter.PUSH_REQUESTS);
            }
        }
        if (out.ack() != null && out.sourceQueue() != null) {
            OpsMeter.QueueMeter qm = meter.queue(tenant, out.sourceQueue());
            qm.increment(OpsMeter.ACK_REQUESTS);
            if (r.ack().positive()) {
                qm.add(OpsMeter.ACK_MESSAGES, out.ack().count());
            } else {
                qm.increment(OpsMeter.ACK_FAILED);
                if (out.ack().dlq()) {
                    qm.increment(OpsMeter.DLQ);
                }
            }
        }
    }

    private Outcome inTransaction(Connection c, LogWriter.InTransaction log, CycleRequest r)
            throws SQLException, Rollback {
        UUID tenant = log.tenant();
        StreamsStore.Begin begin = store.begin(c, tenant, r.queryId(), r.partitionId());
        if (begin.problem() != null) {
            throw new Rollback(true, begin.problem());
        }
        int applied = r.stateOps().isEmpty() ? 0 : store.applyState(c, r.queryId(), r.partitionId(), r.stateOps());
        List<SinkWriter.Result> pushes = sink.push(c, log, r.pushItems());
        AckResult ack = null;
        CycleRequest.Ack a = r.ack();
        if (a == null) {
            if (!store.hold(c, r.partitionId(), r.group())) {
                throw new Rollback(false, "consumer group " + r.group() + " has no cursor on partition "
                        + r.partitionId() + " (pop from it before committing cycles)");
            }
        } else if (a.positive()) {
            byte[] hash = a.transactionId() == null || a.transactionId().isEmpty() ? null
                    : TransactionHash.of(a.transactionId());
            StreamsStore.AckOutcome o = store.ack(c, r.partitionId(), r.group(), a.leaseId(), a.count(),
                    r.releaseLease(), hash);
            switch (o.outcome()) {
                case "ok" -> ack = new AckResult(o.acked(), o.leaseReleased(), false);
                case "invalid_lease" -> throw new Rollback(false, "Invalid or expired lease");
                case "no_cursor" -> throw new Rollback(false, "consumer group " + r.group()
                        + " has no cursor on partition " + r.partitionId());
                case "already_committed" -> throw new Rollback(false, ALREADY_COMMITTED + ": " + a.transactionId());
                case "txn_not_in_span" -> throw new Rollback(false, "ack.transactionId " + a.transactionId()
                        + " is not among the messages this ack covers");
                case "count_exceeds_batch" -> throw new Rollback(false, "ack.count " + a.count()
                        + " exceeds the leased batch (" + o.acked() + " messages)");
                default -> throw new IllegalStateException("cycle_ack_v1 outcome " + o.outcome());
            }
        } else {
            // failed / dlq / retry: the ack decision procedure, with the queue's retry budget
            AckService.AckResult res = acks.apply(c, tenant, List.of(new AckService.AckItem(0, a.transactionId(),
                    r.partitionId().toString(), a.status(), a.leaseId(), a.error())), r.group(), false).get(0);
            if (!res.success()) {
                throw new Rollback(false, "ACK operation failed: " + res.error());
            }
            ack = new AckResult(0, res.leaseReleased(), res.dlq());
        }
        return new Outcome(true, false, null, applied, pushes, ack, begin.sourceQueue());
    }
}
