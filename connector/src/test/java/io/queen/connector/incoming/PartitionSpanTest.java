package io.queen.connector.incoming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import io.queen.connector.QueenIncomingMetadata;
import io.queen.connector.client.Wire.AckItem;

/** Ack ordering rules of a leased span (pure logic, no broker). */
class PartitionSpanTest {

    private static PartitionSpan span(int n) {
        PartitionSpan s = new PartitionSpan(new PopLease("lease-1"), "pid", "g");
        for (int i = 0; i < n; i++) {
            s.messages.add(new QueenMessage<>(i, new QueenIncomingMetadata("q", "p", "pid", "t" + i, "m" + i,
                    OptionalLong.of(i), null, null, "g", "lease-1", null), s, i, null, null));
        }
        s.seal();
        return s;
    }

    private static List<String> ids(PartitionSpan.Release r) {
        return r.acks().stream().map(AckItem::transactionId).toList();
    }

    @Test
    void acksAreReleasedOnlyInOffsetOrder() {
        PartitionSpan s = span(3);
        PartitionSpan.Release r = s.settle(2, "completed", null, false);
        assertEquals(List.of(), ids(r), "a later message never acks before an earlier one");
        r = s.settle(1, "completed", null, false);
        assertEquals(List.of(), ids(r));
        r = s.settle(0, "completed", null, false);
        assertEquals(List.of("t0", "t1", "t2"), ids(r));
        assertTrue(r.finished());
    }

    @Test
    void aFailureReleasesTheLeaseAndDropsTheRest() {
        PartitionSpan s = span(4);
        assertTrue(s.deliver(0));
        s.settle(0, "completed", null, false);
        PartitionSpan.Release r = s.settle(1, "failed", "boom", false);
        assertEquals(List.of("t1"), ids(r));
        assertEquals("failed", r.acks().get(0).status());
        assertEquals("boom", r.acks().get(0).error());
        assertEquals(3, r.terminal(), "the failed one and the two dropped ones");
        assertTrue(r.finished());
        assertFalse(s.deliver(2), "the rest of the span is redelivered by the broker, not here");
        assertEquals(List.of(), ids(s.settle(3, "completed", null, false)), "late acks are ignored");
    }

    @Test
    void transactionCommittedMessagesKeepTheOrderButSendNothing() {
        PartitionSpan s = span(2);
        assertFalse(s.prefixSettled(1));
        s.settle(0, "completed", null, false);
        assertTrue(s.prefixSettled(1));
        PartitionSpan.Release r = s.settle(1, "completed", null, true);
        assertEquals(List.of(), ids(r));
        assertTrue(r.finished());
    }

    @Test
    void abandonReleasesTheLeaseWithARetryAckOnTheFirstOpenMessage() {
        PartitionSpan s = span(3);
        s.settle(0, "completed", null, false);
        PartitionSpan.Release r = s.abandon(true);
        assertEquals(List.of("t1"), ids(r));
        assertEquals("retry", r.acks().get(0).status());
        assertEquals(2, r.terminal());
        assertTrue(s.finished());
        assertFalse(s.abandon(true).changed(), "only once");
    }
}
