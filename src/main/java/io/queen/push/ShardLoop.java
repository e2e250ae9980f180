package io.queen.push;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Runs one fusion shard's tasks one at a time, in submission order, on the threads that submit them: a submitter
 * that finds no task running runs its own and every task that arrives meanwhile, then leaves (flat combining).
 * Blocking work a task produces (a bundle's flush) is handed out with {@link #defer}: the thread that drained
 * the task gets it back after leaving the loop ({@link #executeAndTake}) or it goes to the offload executor.
 *
 * <p>Why not a thread per shard: every push used to cross to the shard's thread and back twice (arrival, then the
 * flush's result) and once more to a new virtual thread for the flush; each crossing to a parked thread is a
 * futex wake-up and a context switch. Here arrival runs on the request's own virtual thread, which then runs the
 * flush it caused, and the result is applied on the flushing thread.
 *
 * <p>Invariant: at most one task runs at any time, tasks start in the order {@link #execute} enqueued them, a
 * task sees every write of the tasks before it (the {@code running} flag is released after a drain and acquired
 * before the next, on whichever thread), and deferred work is never stranded (a drain takes what its tasks
 * deferred before it releases the flag). Thread-safety: {@link #execute} and {@link #executeAndTake} may be
 * called from any thread, including from inside a task (the task then runs later in the same drain);
 * {@link #defer} only from inside a task. Tasks must be short and must not block: whoever submits may run them.
 */
final class ShardLoop {
    private static final Logger LOG = Logger.getLogger(ShardLoop.class);

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final Executor offload;
    /** Work deferred by the tasks of the current drain; touched only by the draining thread. */
    private List<Runnable> deferred = new ArrayList<>(2);

    ShardLoop(Executor offload) {
        this.offload = offload;
    }

    /** Runs the task in turn; whatever it (or tasks drained with it) defers goes to the offload executor. */
    void execute(Runnable task) {
        List<Runnable> work = drain(task);
        if (work != null) {
            work.forEach(offload::execute);
        }
    }

    /**
     * Runs the task in turn and returns one piece of the work deferred during this thread's drain for the caller
     * to run itself (the rest goes to the offload executor), or null.
     */
    Runnable executeAndTake(Runnable task) {
        List<Runnable> work = drain(task);
        if (work == null) {
            return null;
        }
        for (int i = 1; i < work.size(); i++) {
            offload.execute(work.get(i));
        }
        return work.get(0);
    }

    /** From inside a task: work to run outside the loop, after the drain. */
    void defer(Runnable work) {
        deferred.add(work);
    }

    private List<Runnable> drain(Runnable task) {
        tasks.add(task);
        List<Runnable> out = null;
        // Re-checked after every release: a task enqueued while the previous runner was finishing its drain
        // (its CAS failed) is picked up here, by the runner that released or by the submitter.
        while (!tasks.isEmpty() && running.compareAndSet(false, true)) {
            try {
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    try {
                        t.run();
                    } catch (Throwable e) {
                        LOG.error("push shard task failed", e);
                    }
                }
                if (!deferred.isEmpty()) {
                    if (out == null) {
                        out = deferred;
                    } else {
                        out.addAll(deferred);
                    }
                    deferred = new ArrayList<>(2);
                }
            } finally {
                running.set(false);
            }
        }
        return out;
    }
}
