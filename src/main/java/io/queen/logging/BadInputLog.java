package io.queen.logging;

import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Where a listener logs the input from the network it refuses (an unreadable Kafka frame, a malformed HTTP
 * request): one WARN line per event, without a stack trace, and at most {@link #LINES_PER_MINUTE} lines a minute
 * per log; the lines beyond are counted and the next line logged says how many were left out. A client sending
 * garbage in a loop cannot make the broker write more log than it is sent (callers log once per connection at
 * most, and close it). Control characters are escaped by {@link ControlCharacterEscape}, as on every line.
 * Thread-safe.
 */
public final class BadInputLog {
    /** Lines one log writes a minute at most. */
    public static final int LINES_PER_MINUTE = 20;
    private static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Logger log;
    private long windowStart = System.nanoTime();
    private int written;
    private long leftOut;

    public BadInputLog(Class<?> category) {
        this.log = Logger.getLogger(category);
    }

    /** Logs {@code message} unless this minute's lines are used up. */
    public void warn(String message) {
        long skipped;
        synchronized (this) {
            long now = System.nanoTime();
            if (now - windowStart >= WINDOW_NANOS) {
                windowStart = now;
                written = 0;
            }
            if (written >= LINES_PER_MINUTE) {
                leftOut++;
                return;
            }
            written++;
            skipped = leftOut;
            leftOut = 0;
        }
        log.warn(skipped == 0 ? message
                : message + " (" + skipped + " similar lines left out before this one: at most "
                        + LINES_PER_MINUTE + " a minute)");
    }
}
