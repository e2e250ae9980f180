package io.queen.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-message delivery bookkeeping, one slot per (producer, sequence number) and consumer group.
 *
 * <ul>
 *   <li>pushed: the broker answered {@code queued} (or {@code buffered}) for the message;</li>
 *   <li>first delivery: counts towards "delivered at least once"; a first delivery whose sequence number is
 *       lower than the last first-delivered one of the same (group, partition, producer) is out-of-order;</li>
 *   <li>a later delivery is a <em>duplicate</em> when the group had already acknowledged the message
 *       successfully, and a legitimate <em>redelivery</em> (lease expiry / failed ack) otherwise;</li>
 *   <li>lost: pushed but never delivered to the group (evaluated after the drain phase).</li>
 * </ul>
 * Deliveries may be recorded before the corresponding push response (the consumer can win the race), so
 * "pushed" is only evaluated in {@link #summary}.
 */
public final class Verifier {

    /** Classification of one delivery. */
    public enum Kind { FIRST, REDELIVERED, DUPLICATE }

    /** Figures for one group. */
    public record GroupSummary(String group, long expected, long delivered, long exactlyOnce, long duplicates,
                               long redelivered, long lost, long outOfOrder, long unconfirmed) {}

    private record OrderKey(int group, String partition, int producer) {}

    private final int groups;
    private final List<SeqTable> producers;
    private final ConcurrentHashMap<OrderKey, long[]> lastSeq = new ConcurrentHashMap<>();
    private final LongAdder[] firstDelivered;
    private final LongAdder[] firstAcked;
    private final LongAdder[] duplicates;
    private final LongAdder[] redelivered;
    private final LongAdder[] outOfOrder;
    private final LongAdder pushed = new LongAdder();

    public Verifier(int groups, int producers) {
        this.groups = groups;
        this.producers = new ArrayList<>(producers);
        for (int i = 0; i < producers; i++) {
            this.producers.add(new SeqTable(groups));
        }
        firstDelivered = adders(groups);
        firstAcked = adders(groups);
        duplicates = adders(groups);
        redelivered = adders(groups);
        outOfOrder = adders(groups);
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    private SeqTable table(int producer) {
        if (producer < 0 || producer >= producers.size()) {
            return null;
        }
        return producers.get(producer);
    }

    /** The broker accepted (queued/buffered) message {@code seq} of {@code producer}. */
    public void onPushed(int producer, long seq) {
        SeqTable t = table(producer);
        if (t != null && t.markPushed(seq)) {
            pushed.increment();
        }
    }

    /**
     * Records a delivery to {@code group}. Returns {@code null} when the producer index is not one of ours.
     */
    public Kind onDelivered(int group, String partitionKey, int producer, long seq) {
        SeqTable t = table(producer);
        if (t == null || seq < 0) {
            return null;
        }
        Kind k = t.deliver(group, seq);
        switch (k) {
            case FIRST -> {
                firstDelivered[group].increment();
                long[] last = lastSeq.computeIfAbsent(new OrderKey(group, partitionKey, producer),
                        key -> new long[] {-1});
                synchronized (last) {
                    if (seq < last[0]) {
                        outOfOrder[group].increment();
                    } else {
                        last[0] = seq;
                    }
                }
            }
            case DUPLICATE -> duplicates[group].increment();
            case REDELIVERED -> redelivered[group].increment();
        }
        return k;
    }

    /** {@code group} acknowledged the message successfully. */
    public void onAcked(int group, int producer, long seq) {
        SeqTable t = table(producer);
        if (t != null && seq >= 0 && t.ack(group, seq)) {
            firstAcked[group].increment();
        }
    }

    public long pushedCount() {
        return pushed.sum();
    }

    /** Distinct messages delivered to the group so far. */
    public long deliveredCount(int group) {
        return firstDelivered[group].sum();
    }

    /** Distinct messages the group acknowledged so far. */
    public long ackedCount(int group) {
        return firstAcked[group].sum();
    }

    /** Full scan: per-group figures. */
    public List<GroupSummary> summary(List<String> groupNames) {
        List<GroupSummary> out = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            long expected = 0;
            long delivered = 0;
            long once = 0;
            long lost = 0;
            long unconfirmed = 0;
            for (SeqTable t : producers) {
                synchronized (t) {
                    for (int s = 0; s < t.size; s++) {
                        boolean p = t.pushed[s] != 0;
                        int c = t.count[g][s];
                        if (p) {
                            expected++;
                            if (c == 0) {
                                lost++;
                            } else {
                                delivered++;
                                if (c == 1) {
                                    once++;
                                }
                            }
                        } else if (c > 0) {
                            unconfirmed++;
                        }
                    }
                }
            }
            String name = groupNames.get(g) == null ? "__QUEUE_MODE__" : groupNames.get(g);
            out.add(new GroupSummary(name, expected, delivered, once, duplicates[g].sum(), redelivered[g].sum(),
                    lost, outOfOrder[g].sum(), unconfirmed));
        }
        return out;
    }

    /** Dense per-producer arrays indexed by sequence number, grown on demand. */
    private static final class SeqTable {
        byte[] pushed = new byte[1024];
        final byte[][] count;   // deliveries per group, saturating at 127
        final byte[][] acked;   // 1 when the group acked the message
        int size;               // 1 + highest seq touched

        SeqTable(int groups) {
            count = new byte[groups][1024];
            acked = new byte[groups][1024];
        }

        private void ensure(long seq) {
            if (seq >= Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("sequence number too large: " + seq);
            }
            int need = (int) seq + 1;
            if (need > pushed.length) {
                int cap = pushed.length;
                while (cap < need) {
                    cap = (int) Math.min((long) cap * 2, Integer.MAX_VALUE - 8);
                }
                pushed = java.util.Arrays.copyOf(pushed, cap);
                for (int g = 0; g < count.length; g++) {
                    count[g] = java.util.Arrays.copyOf(count[g], cap);
                    acked[g] = java.util.Arrays.copyOf(acked[g], cap);
                }
            }
            size = Math.max(size, need);
        }

        synchronized boolean markPushed(long seq) {
            ensure(seq);
            if (pushed[(int) seq] != 0) {
                return false;
            }
            pushed[(int) seq] = 1;
            return true;
        }

        synchronized Kind deliver(int group, long seq) {
            ensure(seq);
            int s = (int) seq;
            byte c = count[group][s];
            if (c < Byte.MAX_VALUE) {
                count[group][s] = (byte) (c + 1);
            }
            if (c == 0) {
                return Kind.FIRST;
            }
            return acked[group][s] != 0 ? Kind.DUPLICATE : Kind.REDELIVERED;
        }

        synchronized boolean ack(int group, long seq) {
            ensure(seq);
            int s = (int) seq;
            if (acked[group][s] != 0) {
                return false;
            }
            acked[group][s] = 1;
            return true;
        }
    }
}
