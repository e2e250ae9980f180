package io.queen.testing;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * Busy work for the length of a stress scenario, so that races which a quiet machine hides get their windows
 * widened: CPU-spinning platform threads in this JVM (which also runs the broker under test) and sequential-scan
 * queries on the database. Closing it stops every thread and waits for them. Not thread-safe: one owner.
 */
public final class ArtificialLoad implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    private ArtificialLoad() {
    }

    /** Starts {@code spinners} CPU spinners and {@code queries} connections running heavy queries on {@code ds}. */
    public static ArtificialLoad start(int spinners, int queries, DataSource ds) {
        ArtificialLoad load = new ArtificialLoad();
        for (int i = 0; i < spinners; i++) {
            load.add("load-spin-" + i, load::spin);
        }
        for (int i = 0; i < queries; i++) {
            load.add("load-sql-" + i, () -> load.query(ds));
        }
        return load;
    }

    private void add(String name, Runnable r) {
        Thread t = Thread.ofPlatform().name(name).daemon().start(r);
        threads.add(t);
    }

    private void spin() {
        long x = 0;
        while (!stop.get()) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 31 + i;
            }
        }
        if (x == 42) {
            System.out.print("");
        }
    }

    private void query(DataSource ds) {
        while (!stop.get()) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT count(*) FROM generate_series(1, 2000000) g WHERE g % 7 = 3");
            } catch (Exception e) {
                if (stop.get()) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
    }
}
