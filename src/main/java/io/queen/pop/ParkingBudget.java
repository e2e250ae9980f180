package io.queen.pop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.queen.config.QueenConfig;
import jakarta.inject.Singleton;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many long polls may wait at once: per client address ({@code queen.pop.max-parked-per-address}) and in all
 * ({@code queen.pop.max-parked}). A long poll holds a place from admission to answer, whether it parks or is
 * served at once; one beyond either cap gets none and is answered "nothing" before any database work. Places are
 * counted per request, so the HTTP/2 streams of one connection count one each (a connection cap alone let one
 * address park 100 streams on each of its connections).
 *
 * <p>Invariant: {@code total} and each address's count equal the places taken and not yet given back; an address
 * whose count falls to zero is forgotten. Thread-safe (atomic counters; a late increment on a forgotten counter
 * re-creates it on the next admission).
 */
@Singleton
public class ParkingBudget {
    private final int maxPerAddress;
    private final int maxTotal;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final Counter refused;

    ParkingBudget(QueenConfig config, MeterRegistry registry) {
        this.maxPerAddress = config.pop().maxParkedPerAddress();
        this.maxTotal = config.pop().maxParked();
        this.refused = Counter.builder("queen.pop.parked.refused")
                .description("long polls answered 204 at once: the per-address or total cap of waiting polls was reached")
                .register(registry);
        Gauge.builder("queen.pop.parked.places", total, AtomicInteger::doubleValue).strongReference(true)
                .description("long polls holding a place in the parking budget (waiting or being served)")
                .register(registry);
    }

    /** A place taken; {@link #close} gives it back (once). */
    public final class Place implements AutoCloseable {
        private final String address;
        private final AtomicInteger count;
        private boolean closed;

        private Place(String address, AtomicInteger count) {
            this.address = address;
            this.count = count;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            total.decrementAndGet();
            if (count.decrementAndGet() <= 0) {
                perAddress.remove(address, count);
            }
        }
    }

    /** A place for a long poll from {@code address}, or null when a cap is reached (answer "nothing" at once). */
    public Place admit(String address) {
        String key = address == null ? "" : address;
        if (total.incrementAndGet() > maxTotal && maxTotal > 0) {
            total.decrementAndGet();
            refused.increment();
            return null;
        }
        AtomicInteger mine = perAddress.computeIfAbsent(key, a -> new AtomicInteger());
        if (mine.incrementAndGet() > maxPerAddress && maxPerAddress > 0) {
            if (mine.decrementAndGet() <= 0) {
                perAddress.remove(key, mine);
            }
            total.decrementAndGet();
            refused.increment();
            return null;
        }
        return new Place(key, mine);
    }
}
