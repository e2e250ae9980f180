package io.queen.background;

import org.jboss.logging.Logger;

/**
 * The warning of a repeated task (a heartbeat, a poll, a publication) that fails while its dependency is down: the
 * first failure after a success warns, the later ones of the same outage stay quiet, so an outage is one log line, not
 * one per run. Confined to the task's thread (not thread-safe).
 */
public final class OutageWarning {
    private final Logger log;
    private boolean warned;

    public OutageWarning(Logger log) {
        this.log = log;
    }

    /** One run of the task. */
    @FunctionalInterface
    public interface Run {
        void run() throws Exception;
    }

    /**
     * Runs {@code run} and reports its outcome; a failure, whatever it throws (a scheduled task must not die of it),
     * warns "{@code what}: the throwable" once per outage. Returns whether the run succeeded.
     */
    public boolean attempt(Run run, String what) {
        try {
            run.run();
        } catch (Throwable t) {
            failed("%s: %s", what, t.toString());
            return false;
        }
        succeeded();
        return true;
    }

    /** The task succeeded: its next failure starts a new outage. */
    public void succeeded() {
        warned = false;
    }

    /** The task failed: warns ({@link Logger#warnf}) unless this outage has already been reported. */
    public void failed(String format, Object... params) {
        if (!warned) {
            log.warnf(format, params);
            warned = true;
        }
    }
}
