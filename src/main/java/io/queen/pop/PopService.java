package io.queen.pop;

import io.queen.api.ErrorMappers;
import io.queen.metrics.OpsMeter;
import io.queen.pop.LongPoll.Waited;
import io.queen.queue.QueueFlags;
import io.queen.shutdown.DrainState;
import io.queen.wakeup.PopWaiters;
import io.queen.wakeup.WakeSignal;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Pinned, wildcard and namespace/task pops, with long polling. A pop that finds nothing and may wait parks on
 * {@link PopWaiters} holding no database connection and doing no database work ({@link LongPoll}), and tries again
 * when it is woken (its queue written on this broker or another, an ack or release ending a lease, a seek), when a
 * lease it could take over expires or a delay matures (asked once per park, {@link DueTimes}), or after the long
 * safety interval ({@code queen.pop.recheck-interval-ms}, for a lost notification), until data or the timeout.
 * Transient database trouble is absorbed (a consume loop dies on a 5xx): the pop retries until its deadline and then
 * answers "nothing". Once the broker drains for a stop ({@link DrainState}) a pop claims nothing more and a parked
 * one answers "nothing" at once: every lease this broker grants is one it can still give back before it exits.
 * The claim itself is {@link PopClaims}'s. Thread-safe; called on virtual threads.
 */
@Singleton
public class PopService {
    private static final Logger LOG = Logger.getLogger(PopService.class);

    /**
     * What a pop delivered (null for "nothing"): the JSON body, the message count, and the queue, group and lease id
     * it was served under (lease id "" with autoAck); {@code claimed}: the messages the claim leased, of which the
     * answer carries {@code messages}; {@code partitions}: the names of the partitions claimed.
     */
    public record Result(byte[] body, int messages, String queue, String group, String leaseId, int claimed,
            List<String> partitions) {
    }

    private final PopStore store;
    private final PopWaiters waiters;
    private final PopClaims claims;
    private final DueTimes dues;
    private final LongPoll longPoll;
    private final PopMetrics metrics;
    private final QueueFlags flags;
    private final OpsMeter meter;
    private final DrainState drain;
    private final PopClock clock;

    PopService(PopStore store, PopWaiters waiters, PopClaims claims, DueTimes dues, LongPoll longPoll,
            PopMetrics metrics, QueueFlags flags, OpsMeter meter, DrainState drain, PopClock clock) {
        this.store = store;
        this.waiters = waiters;
        this.claims = claims;
        this.dues = dues;
        this.longPoll = longPoll;
        this.metrics = metrics;
        this.flags = flags;
        this.meter = meter;
        this.drain = drain;
        this.clock = clock;
    }

    public Result pop(UUID tenant, PopRequest r, BooleanSupplier clientGone) {
        long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(r.longPoll() ? r.timeoutMs() : 0);
        WakeSignal signal = r.queue() != null ? waiters.hold(tenant, r.queue()) : waiters.tenant(tenant);
        OpsMeter.QueueMeter qm = null;  // see meter: resolved when first counted on
        boolean answered = false;  // the database answered an attempt of this pop
        long holdNanos = TimeUnit.MILLISECONDS.toNanos(holdMs(tenant, r));
        long holdUntil = 0;
        boolean parked = false;
        Result served = null;
        Waited waited = Waited.ELAPSED;
        long othersSeen = 0;
        try {
            while (!drain.draining()) {
                long seen = signal.generation();
                long others = signal.others();
                // woken only by this broker's fused commits since the last attempt (see HotPartitions#handedOut)
                boolean fusedOnly = waited == Waited.WOKEN && others == othersSeen;
                othersSeen = others;
                long dueAt = Long.MAX_VALUE;  // when to try again without a wake-up (nothing pending: never)
                try {
                    long hold = holdEnd(tenant, r, holdNanos, holdUntil, deadline);
                    if (hold != 0) {
                        holdUntil = hold;
                        if (!longPoll.awaitFill(signal, seen, hold, clientGone)) {
                            return null;  // the client left: claiming now would lease messages nobody receives
                        }
                        waited = Waited.ELAPSED;
                        continue;
                    }
                    Result res = dues.knownEmpty(tenant, r, seen) ? null : claims.attempt(tenant, r, fusedOnly);
                    answered = true;
                    if (res != null) {
                        return served = res;
                    }
                    dueAt = dues.next(tenant, r, seen, deadline);
                } catch (SQLException e) {
                    failed(qm = meter(qm, tenant, r.queue(), answered), e);
                    seen = -1;  // do not wait for a wake-up; just back off below
                }
                if (deadline - clock.nanoTime() <= 0 || clientGone.getAsBoolean() || drain.draining()) {
                    return null;
                }
                parked = metrics.parked(qm = meter(qm, tenant, r.queue(), answered), parked);
                waited = seen == -1 ? longPoll.backOff(deadline)
                        : longPoll.park(signal, seen, deadline, dueAt, clientGone);
                if (waited == Waited.OVER) {
                    return null;
                }
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            waiters.release(signal);
            // a pop that delivered without parking counts nothing on its queue's meter here (the claim did)
            metrics.ended(parked || served == null ? meter(qm, tenant, r.queue(), answered) : meter.unattributed(),
                    parked, served);
        }
    }

    /**
     * minPopWaitTime: an under-full, non-empty batch waits (up to the hold, within the pop's timeout) for more,
     * holding no connection; commits to the queue wake it to measure again. The hold's end while the pop should
     * wait for it (the first under-full measure sets it, {@code holdUntil} 0 = not yet), else 0: claim now.
     */
    private long holdEnd(UUID tenant, PopRequest r, long holdNanos, long holdUntil, long deadline)
            throws SQLException {
        if (holdNanos <= 0) {
            return 0;
        }
        long now = clock.nanoTime();
        if (holdUntil != 0 && now >= holdUntil) {
            return 0;
        }
        long fill = store.fill(tenant, r.queue(), r.partition(), r.group());
        if (fill <= 0 || fill >= r.batch()) {
            return 0;
        }
        if (holdUntil == 0) {
            holdUntil = Math.min(now + holdNanos, deadline);
            metrics.held();
        }
        return now < holdUntil ? holdUntil : 0;
    }

    /**
     * The pop's meter, once chosen ({@code known}) kept for the pop (what it counts parked it counts unparked):
     * the queue's own when the queue exists, so a pop of a name that exists nowhere takes no label (of the
     * {@code queen.metrics.max-queues}) from the queues that do. A queue without a label yet is asked for only after
     * the database answered one of the pop's attempts, so that an outage costs a long poll no wait of its own.
     */
    private OpsMeter.QueueMeter meter(OpsMeter.QueueMeter known, UUID tenant, String queue, boolean answered) {
        if (known != null) {
            return known;
        }
        OpsMeter.QueueMeter labelled = meter.existing(tenant, queue);  // the queue had traffic here: it exists
        if (labelled != null) {
            return labelled;
        }
        try {
            return queue != null && answered && flags.exists(tenant, queue) ? meter.queue(tenant, queue)
                    : meter.unattributed();
        } catch (SQLException e) {
            return meter.unattributed();  // the claim meets the same trouble and counts it
        }
    }

    /** The queue's minPopWaitTime when it applies: a named queue, a long poll, a batch of more than one. */
    private int holdMs(UUID tenant, PopRequest r) {
        if (!r.longPoll() || r.batch() <= 1 || r.queue() == null) {
            return 0;
        }
        try {
            return flags.minPopWaitMs(tenant, r.queue());
        } catch (SQLException e) {
            return 0;  // the claim below meets the same trouble and answers for it
        }
    }

    /** A failed attempt is counted and logged; the pop backs off and tries again until its deadline. */
    private static void failed(OpsMeter.QueueMeter qm, SQLException e) {
        qm.increment(OpsMeter.DB_ERRORS);
        if (ErrorMappers.isUnavailable(e)) {
            LOG.warnf("pop: database unavailable (%s); answering nothing", e.getMessage());
        } else {
            LOG.error("pop failed", e);
        }
    }

    /**
     * A seek, a group delete or a subscription change moved a group's cursors (possibly backwards): forget its
     * wildcard scan floors, and wake parked pops here and on other brokers, which do not re-query on a timer.
     */
    public void cursorsMoved(String group) {
        claims.forgetFloors(group);
        waiters.freedEverywhere();
    }
}
