package io.queen.background;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one thread of a broker's background loop (retention, status snapshots, live publication, metric flushes): a
 * named daemon thread, so that a loop never holds the JVM open and shows by name in a thread dump. Stateless.
 */
public final class DaemonTimer {
    private DaemonTimer() {
    }

    /** A single-thread scheduler on a daemon thread named {@code threadName}. */
    public static ScheduledExecutorService create(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** {@link #create} running {@code task} every {@code delayMs} after each run ends, the first after one delay. */
    public static ScheduledExecutorService every(String threadName, long delayMs, Runnable task) {
        ScheduledExecutorService timer = create(threadName);
        timer.scheduleWithFixedDelay(task, delayMs, delayMs, TimeUnit.MILLISECONDS);
        return timer;
    }
}
