package io.queen.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CommitLoadTest {
    final AtomicLong clock = new AtomicLong();

    @Test
    void busyFromTheThresholdUntilACommitEnds() {
        CommitLoad load = new CommitLoad(2, 500, clock::get);
        CommitLoad.Commit a = load.start();
        assertFalse(load.busy());
        CommitLoad.Commit b = load.start();
        assertTrue(load.busy());
        a.end();
        a.end();
        assertEquals(1, load.inflight(), "a commit stops counting once");
        assertFalse(load.busy());
        b.end();
        assertEquals(0, load.inflight());
    }

    @Test
    void aCommitPastTheHoldLimitStopsCountingOnce() {
        CommitLoad load = new CommitLoad(1, 500, clock::get);
        CommitLoad.Commit stalled = load.start();
        assertTrue(load.busy());
        clock.set(500);
        assertFalse(stalled.overdue(), "not past the limit yet");
        clock.set(501);
        assertTrue(stalled.overdue());
        assertFalse(stalled.overdue(), "told once");
        assertFalse(stalled.counts());
        assertFalse(load.busy());
        stalled.end();  // it finishes later: nothing left to stop counting
        assertEquals(0, load.inflight());
    }

    @Test
    void neverBusyWithoutAThreshold() {
        CommitLoad load = new CommitLoad(0, 500, clock::get);
        for (int i = 0; i < 100; i++) {
            load.start();
        }
        assertFalse(load.busy());
    }
}
