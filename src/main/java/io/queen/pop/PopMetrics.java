package io.queen.pop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.metrics.OpsMeter;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What pops count on this broker ({@code queen.pop.*}) and per queue ({@link OpsMeter}): pops parked right now,
 * messages delivered, batches held, empty answers. The claim counts its own (hot claims, sleeps on, deliveries per
 * queue). Thread-safe.
 */
@Singleton
public class PopMetrics {
    private final AtomicInteger parked = new AtomicInteger();
    private final Counter delivered;
    private final Counter holds;

    PopMetrics(MeterRegistry registry) {
        this.holds = Counter.builder("queen.pop.holds")
                .description("pops that held an under-full batch for the queue's minPopWaitTime").register(registry);
        Gauge.builder("queen.pop.parked", parked, Number::doubleValue).strongReference(true)
                .description("pops of this broker waiting for messages right now").register(registry);
        this.delivered = Counter.builder("queen.pop.messages").description("messages delivered by pops")
                .register(registry);
    }

    /** A pop holds an under-full batch for its queue's minPopWaitTime (counted once per pop). */
    void held() {
        holds.increment();
    }

    /**
     * A pop found nothing and waits: counted once per pop ({@code already}: it was), until {@link #ended}. Returns
     * true: the pop is counted as parked.
     */
    boolean parked(OpsMeter.QueueMeter qm, boolean already) {
        if (!already) {
            parked.incrementAndGet();
            qm.parked();
        }
        return true;
    }

    /** A pop answered; {@code parked}: it had waited; {@code served}: what it delivered (null: nothing). */
    void ended(OpsMeter.QueueMeter qm, boolean parked, PopService.Result served) {
        if (parked) {
            this.parked.decrementAndGet();
            qm.unparked();
        }
        if (served != null) {
            delivered.increment(served.messages());
        } else {
            // a delivering pop is counted by the claim, under the queue that delivered
            qm.increment(OpsMeter.POP_REQUESTS);
            qm.increment(OpsMeter.POP_EMPTY);
        }
    }
}
