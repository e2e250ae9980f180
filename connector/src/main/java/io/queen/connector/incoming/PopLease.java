package io.queen.connector.incoming;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * The lease taken by one pop call and the spans (one per claimed partition) it covers, plus its renewal timer.
 * <p>
 * Invariant: the renewal timer runs while at least one span is unfinished. Thread-safe: {@code spans} is filled
 * before the lease is published; the timer field is volatile and only cancelled.
 */
final class PopLease {

    final String leaseId;
    final List<PartitionSpan> spans = new ArrayList<>();
    volatile ScheduledFuture<?> renewal;

    PopLease(String leaseId) {
        this.leaseId = leaseId;
    }

    boolean finished() {
        for (PartitionSpan s : spans) {
            if (!s.finished()) {
                return false;
            }
        }
        return true;
    }

    void stopRenewal() {
        ScheduledFuture<?> r = renewal;
        if (r != null) {
            r.cancel(false);
        }
    }
}
