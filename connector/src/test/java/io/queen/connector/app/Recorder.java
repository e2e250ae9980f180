package io.queen.connector.app;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.QueenIncomingMetadata;

/**
 * What the test applications processed: kept in memory (in-process tests) and, when the system property
 * {@code app.out} names a file, appended to it one line per record with an unbuffered write, so the lines of a
 * process killed with SIGKILL survive in the OS page cache. Thread-safe.
 */
public final class Recorder {

    /** One processed message: identity, partition, processing interval and the instance that ran it. */
    public record Entry(String id, String partition, long startNanos, long endNanos, String instance, String extra) {
        String line() {
            return id + "|" + partition + "|" + startNanos + "|" + endNanos + "|" + instance + "|" + extra + "\n";
        }

        public static Entry parse(String line) {
            String[] f = line.split("\\|", -1);
            return new Entry(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), f[4], f[5]);
        }
    }

    public static final List<Entry> ENTRIES = new CopyOnWriteArrayList<>();
    private static OutputStream out;

    private Recorder() {
    }

    /** Sleeps {@code app.delay.ms} ms (so that a kill lands mid-stream); returns when processing started. */
    public static long pause() throws InterruptedException {
        long start = System.nanoTime();
        long delay = Long.getLong("app.delay.ms", 0);
        if (delay > 0) {
            Thread.sleep(delay);
        }
        return start;
    }

    /** Records {@code id} as processed from {@code start} to now, on the partition of the message {@code in}. */
    public static void processed(String id, Message<?> in, long start) {
        record(new Entry(id, in.getMetadata(QueenIncomingMetadata.class)
                .map(QueenIncomingMetadata::partition).orElse("?"), start, System.nanoTime(),
                instance(), ""));
    }

    public static synchronized void record(Entry e) {
        ENTRIES.add(e);
        String file = System.getProperty("app.out");
        if (file == null) {
            return;
        }
        try {
            if (out == null) {
                out = new FileOutputStream(file, true);
            }
            out.write(e.line().getBytes(StandardCharsets.UTF_8));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public static String instance() {
        return System.getProperty("app.instance", "main");
    }
}
