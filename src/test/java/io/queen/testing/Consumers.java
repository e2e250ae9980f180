package io.queen.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * Concurrent consumers for tests: {@code n} workers run to completion (a worker's failure fails the caller), each
 * popping until the queue has answered empty a number of times in a row. Stateless, thread-safe.
 */
public final class Consumers {
    private Consumers() {
    }

    /** What a worker does with one non-empty pop answer. */
    @FunctionalInterface
    public interface Batch {
        void accept(JsonNode popped) throws Exception;
    }

    /** A worker's body. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    /** Runs {@code work} on {@code n} threads and waits for all; the first failure is thrown. */
    public static void run(int n, Work work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(pool.submit(() -> {
                    work.run();
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /**
     * Pops {@code path} and hands each non-empty answer to {@code batch} until {@code moreComing} is false and
     * {@code emptyInARow} answers in a row were empty, sleeping {@code pauseMs} after an empty one.
     */
    public static void popUntilEmpty(String path, BooleanSupplier moreComing, int emptyInARow, long pauseMs,
            Batch batch) throws Exception {
        int empty = 0;
        while (moreComing.getAsBoolean() || empty < emptyInARow) {
            JsonNode p = Api.pop(path);
            if (p == null) {
                empty++;
                if (pauseMs > 0) {
                    Thread.sleep(pauseMs);
                }
                continue;
            }
            empty = 0;
            batch.accept(p);
        }
    }
}
