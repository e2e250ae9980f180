package io.queen.connector.incoming;

import java.util.ArrayList;
import java.util.List;

import io.queen.connector.client.Wire.AckItem;

/**
 * The messages of one partition handed out by one pop, under one lease, and the order in which their acks may
 * be released.
 * <p>
 * Why: on the broker, acking offset N completes every offset up to N for the group, and any non-completed
 * status (failed, dlq, retry) releases the lease. So an ack is only released once every earlier message of the
 * span is settled, and after a non-completed settlement the rest of the span is abandoned: not delivered any
 * more and never acked (the broker redelivers it from the cursor).
 * <p>
 * Invariant: {@code next} is the first index whose ack was not released; indexes below it are released; a
 * message becomes terminal (counted once in {@link Release#terminal}) when settled or dropped.
 * Thread-safe: every method is synchronized on the span.
 */
final class PartitionSpan {

    private static final byte OPEN = 0, SETTLED = 1, RELEASED = 2;

    final PopLease lease;
    final String partitionId;
    final String consumerGroup;
    final List<QueenMessage<?>> messages = new ArrayList<>();
    private byte[] state;
    private String[] status;
    private String[] error;
    private boolean[] byTransaction;
    private boolean[] delivered;
    private int next;
    private boolean abandoned;

    PartitionSpan(PopLease lease, String partitionId, String consumerGroup) {
        this.lease = lease;
        this.partitionId = partitionId;
        this.consumerGroup = consumerGroup;
    }

    /** Called once all messages were added. */
    void seal() {
        int n = messages.size();
        state = new byte[n];
        status = new String[n];
        error = new String[n];
        byTransaction = new boolean[n];
        delivered = new boolean[n];
    }

    /** What a settlement releases: acks to send in order, newly terminal messages, and whether the span ended. */
    record Release(List<AckItem> acks, int terminal, boolean finished, boolean changed) {
        static final Release NONE = new Release(List.of(), 0, false, false);
    }

    synchronized boolean deliverable(int index) {
        return !abandoned && state[index] == OPEN;
    }

    /** Marks a message handed to the application; false when it must be skipped (settled or abandoned). */
    synchronized boolean deliver(int index) {
        if (abandoned || state[index] != OPEN) {
            return false;
        }
        delivered[index] = true;
        return true;
    }

    /** True while a message handed to the application is not settled yet. */
    synchronized boolean hasDeliveredOpen() {
        for (int i = next; i < state.length; i++) {
            if (delivered[i] && state[i] == OPEN) {
                return true;
            }
        }
        return false;
    }

    synchronized boolean finished() {
        return abandoned || next == state.length;
    }

    synchronized boolean abandoned() {
        return abandoned;
    }

    /** True when every message before {@code index} is settled (required before a transaction acks it). */
    synchronized boolean prefixSettled(int index) {
        for (int i = next; i < index; i++) {
            if (state[i] == OPEN) {
                return false;
            }
        }
        return true;
    }

    /**
     * Settles one message. {@code committed} means the broker already acked it (in a transaction), so no ack is
     * sent for it; it still counts in the order.
     */
    synchronized Release settle(int index, String st, String err, boolean committed) {
        if (abandoned || state[index] != OPEN) {
            return Release.NONE;
        }
        state[index] = SETTLED;
        status[index] = st;
        error[index] = err;
        byTransaction[index] = committed;
        int terminal = 1;
        List<AckItem> acks = new ArrayList<>();
        while (next < state.length && state[next] == SETTLED) {
            QueenMessage<?> m = messages.get(next);
            if (!byTransaction[next]) {
                acks.add(new AckItem(m.metadata().transactionId(), partitionId, status[next], lease.leaseId, error[next]));
            }
            state[next] = RELEASED;
            boolean completed = "completed".equals(status[next]);
            next++;
            if (!completed) {
                terminal += dropRest();
                break;
            }
        }
        return new Release(acks, terminal, finished(), true);
    }

    /**
     * Gives the span up (lease lost, or shutdown). With {@code releaseLease}, the first unreleased message is
     * acked with status {@code retry}, which makes the broker release the lease at once instead of at expiry.
     */
    synchronized Release abandon(boolean releaseLease) {
        if (finished()) {
            return Release.NONE;
        }
        List<AckItem> acks = new ArrayList<>();
        if (releaseLease && lease.leaseId != null && !lease.leaseId.isEmpty()) {
            QueenMessage<?> m = messages.get(next);
            acks.add(new AckItem(m.metadata().transactionId(), partitionId, "retry", lease.leaseId,
                    "consumer stopped"));
        }
        int terminal = dropRest();
        return new Release(acks, terminal, true, true);
    }

    private int dropRest() {
        abandoned = true;
        int terminal = 0;
        for (int i = next; i < state.length; i++) {
            if (state[i] == OPEN) {
                terminal++;
            }
            state[i] = RELEASED;
        }
        return terminal;
    }
}
