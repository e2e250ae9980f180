package io.queen.bench;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class VerifierTest {

    private static final List<String> QUEUE_MODE = java.util.Collections.singletonList(null);

    /** A verifier for {@code groups} groups that saw sequences 0 .. perProducer - 1 pushed by each producer. */
    private static Verifier pushed(int groups, int producers, long perProducer) {
        Verifier v = new Verifier(groups, producers);
        for (int p = 0; p < producers; p++) {
            for (long s = 0; s < perProducer; s++) {
                v.onPushed(p, s);
            }
        }
        return v;
    }

    @Test
    void cleanRunIsExactlyOnce() {
        Verifier v = pushed(1, 2, 5000);
        for (int p = 0; p < 2; p++) {
            for (long s = 0; s < 5000; s++) {
                assertEquals(Verifier.Kind.FIRST, v.onDelivered(0, "part-" + (s % 3), p, s));
                v.onAcked(0, p, s);
            }
        }
        var g = v.summary(QUEUE_MODE).get(0);
        assertEquals("__QUEUE_MODE__", g.group());
        assertEquals(10_000, g.expected());
        assertEquals(10_000, g.delivered());
        assertEquals(10_000, g.exactlyOnce());
        assertEquals(0, g.duplicates());
        assertEquals(0, g.redelivered());
        assertEquals(0, g.lost());
        assertEquals(0, g.outOfOrder());
        assertEquals(10_000, v.deliveredCount(0));
        assertEquals(10_000, v.ackedCount(0));
        assertEquals(10_000, v.pushedCount());
    }

    @Test
    void lostIsPushedButNeverDelivered() {
        Verifier v = pushed(1, 1, 10);
        for (long s = 0; s < 10; s++) {
            if (s != 3 && s != 7) {
                v.onDelivered(0, "p0", 0, s);
            }
        }
        var g = v.summary(QUEUE_MODE).get(0);
        assertEquals(2, g.lost());
        assertEquals(8, g.delivered());
    }

    @Test
    void duplicateAfterAckVersusRedeliveryWithoutAck() {
        Verifier v = new Verifier(1, 1);
        v.onPushed(0, 0);
        v.onPushed(0, 1);
        assertEquals(Verifier.Kind.FIRST, v.onDelivered(0, "p0", 0, 0));
        v.onAcked(0, 0, 0);
        assertEquals(Verifier.Kind.DUPLICATE, v.onDelivered(0, "p0", 0, 0));

        assertEquals(Verifier.Kind.FIRST, v.onDelivered(0, "p0", 0, 1));
        // never acked (lease expired): a legitimate redelivery, then acked, then a true duplicate
        assertEquals(Verifier.Kind.REDELIVERED, v.onDelivered(0, "p0", 0, 1));
        v.onAcked(0, 0, 1);
        assertEquals(Verifier.Kind.DUPLICATE, v.onDelivered(0, "p0", 0, 1));

        var g = v.summary(QUEUE_MODE).get(0);
        assertEquals(2, g.duplicates());
        assertEquals(1, g.redelivered());
        assertEquals(0, g.exactlyOnce());
        assertEquals(2, g.delivered());
        assertEquals(0, g.outOfOrder(), "redeliveries are not order violations");
    }

    @Test
    void outOfOrderIsPerGroupPartitionAndProducer() {
        Verifier v = pushed(1, 2, 10);
        // producer 0 in partition A: 0, 2, 1 -> one violation
        v.onDelivered(0, "A", 0, 0);
        v.onDelivered(0, "A", 0, 2);
        v.onDelivered(0, "A", 0, 1);
        // interleaving producers in one partition is fine; so is a lower seq in another partition
        v.onDelivered(0, "A", 1, 5);
        v.onDelivered(0, "A", 0, 3);
        v.onDelivered(0, "B", 0, 4);
        v.onDelivered(0, "B", 1, 0);
        v.onDelivered(0, "A", 1, 6);
        assertEquals(1, v.summary(QUEUE_MODE).get(0).outOfOrder());
    }

    @Test
    void groupsAreIndependent() {
        Verifier v = new Verifier(2, 1);
        v.onPushed(0, 0);
        v.onDelivered(0, "p", 0, 0);
        v.onAcked(0, 0, 0);
        var s = v.summary(Arrays.asList("g0", "g1"));
        assertEquals("g0", s.get(0).group());
        assertEquals(0, s.get(0).lost());
        assertEquals("g1", s.get(1).group());
        assertEquals(1, s.get(1).lost());
        assertEquals(Verifier.Kind.FIRST, v.onDelivered(1, "p", 0, 0));
    }

    @Test
    void deliveryBeforePushResponseAndUnconfirmedMessages() {
        Verifier v = new Verifier(1, 1);
        // the consumer can win the race against the producer's bookkeeping
        assertEquals(Verifier.Kind.FIRST, v.onDelivered(0, "p", 0, 0));
        v.onPushed(0, 0);
        // seq 1: push failed on the client side but the message was delivered anyway
        v.onDelivered(0, "p", 0, 1);
        var g = v.summary(QUEUE_MODE).get(0);
        assertEquals(1, g.expected());
        assertEquals(1, g.delivered());
        assertEquals(0, g.lost());
        assertEquals(1, g.unconfirmed());
    }

    @Test
    void unknownProducerIsIgnoredAndTablesGrow() {
        Verifier v = new Verifier(1, 1);
        assertEquals(null, v.onDelivered(0, "p", 5, 0));
        v.onPushed(0, 1_000_000);
        v.onDelivered(0, "p", 0, 1_000_000);
        var g = v.summary(QUEUE_MODE).get(0);
        assertEquals(1, g.expected());
        assertEquals(1, g.delivered());
    }
}
