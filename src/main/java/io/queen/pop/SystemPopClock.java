package io.queen.pop;

import io.queen.wakeup.WakeSignal;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The broker's pop clock: the system clocks and plain timed waits. A {@code @Singleton} is injected without a
 * client proxy, and as the only {@link PopClock} the broker loads its calls compile to the system calls.
 */
@Singleton
public class SystemPopClock implements PopClock {
    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long millis() {
        return System.currentTimeMillis();
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }

    @Override
    public boolean awaitChange(WakeSignal signal, long seen, long nanos) throws InterruptedException {
        return signal.awaitChange(seen, nanos);
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }
}
