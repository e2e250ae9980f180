package io.queen.shutdown;

import jakarta.inject.Singleton;

/**
 * Where this broker is in its stop sequence: {@code SERVING}, then {@code LEAVING} (readiness already 503, still
 * serving), then {@code DRAINING} (new requests are refused, no new lease is granted, parked pops answer 204 at
 * once). It only moves forward. Read on every request and pop, written by {@link GracefulShutdown}; thread-safe
 * (one volatile field; {@link #advance} is synchronized so two writers never move it backwards).
 */
@Singleton
public class DrainState {
    /** The stop sequence's phases, in order. */
    public enum Phase {
        SERVING, LEAVING, DRAINING
    }

    private volatile Phase phase = Phase.SERVING;

    public Phase phase() {
        return phase;
    }

    /** True once pops must no longer lease anything: they answer "nothing" right away. */
    public boolean draining() {
        return phase == Phase.DRAINING;
    }

    /** True from SIGTERM on: readiness reports the broker unavailable. */
    public boolean stopping() {
        return phase != Phase.SERVING;
    }

    synchronized void advance(Phase next) {
        if (next.ordinal() > phase.ordinal()) {
            phase = next;
        }
    }
}
