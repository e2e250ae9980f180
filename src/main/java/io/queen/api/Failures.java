package io.queen.api;

import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Classifies server-side failures for the answer: transient ones (the database is unreachable or shutting down,
 * the pool timed out, lock contention that a retry cures) are 503 with {@code Retry-After}; anything else is a
 * 500 whose answer names only a request id that the log line also carries. No answer ever carries driver text,
 * SQL or a stack trace. Stateless, thread-safe.
 */
public final class Failures {
    public static final String UNAVAILABLE = "Database unavailable, retry later";
    /** A write reached a server that accepts no writes: a standby (mid-failover) or a read-only setting. */
    public static final String READ_ONLY = "Database is read-only (a standby, or writes are switched off), retry later";
    public static final String DISK_FULL = "Database out of disk space, retry later";
    public static final String OUT_OF_MEMORY = "Database out of memory, retry later";
    public static final String INTERNAL = "Internal error";
    /** Seconds a client should wait before retrying a 503. */
    public static final String RETRY_AFTER_SECONDS = "1";

    private Failures() {
    }

    /**
     * True for a failure that is only the client going away: it closed the connection while its body was being
     * read ({@code HttpClosedException}) or before the answer was written (a closed channel, a failed write, a
     * reset). Nothing failed on this side; such a request is logged at debug level, without a stack trace.
     */
    public static boolean clientGone(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpClosedException || t instanceof java.nio.channels.ClosedChannelException
                    || t instanceof java.io.IOException && t.getMessage() != null
                            && (t.getMessage().contains("Failed to write") || t.getMessage().contains("Connection reset"))) {
                return true;
            }
        }
        return false;
    }

    /** The HTTP server's refusal of a streamed body that grew past {@code QUEEN_MAX_BODY_BYTES}. */
    public static boolean bodyTooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.io.IOException && "Request too large".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True for a failure a retry may cure: SQLState class 08 (connection), 57P01-57P03 (admin shutdown, crash
     * shutdown, cannot connect now), 57014 (statement timeout or cancel), 53300 (too many connections), 40001
     * (serialization failure), 40P01 (deadlock), a refused connection, or the pool's acquisition timeout.
     */
    public static boolean isTransient(Throwable t) {
        return unavailableReason(t) != null;
    }

    /**
     * The 503 answer's text for a failure a retry may cure ({@link #isTransient}, plus 25006 read-only transaction,
     * 53100 disk full, 53200 out of memory, each named), or null for any other failure. A failed statement rolled its
     * transaction back, so nothing of the request was written.
     */
    public static String unavailableReason(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLTransientConnectionException || c instanceof ConnectException) {
                return UNAVAILABLE;
            }
            if (c instanceof SQLException s) {
                String state = s.getSQLState();
                if (state != null) {
                    switch (state) {
                        case "25006":
                            return READ_ONLY;
                        case "53100":
                            return DISK_FULL;
                        case "53200":
                            return OUT_OF_MEMORY;
                        default:
                            break;
                    }
                    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                            || state.equals("57P03") || state.equals("57014") || state.equals("53300")
                            || state.equals("40001") || state.equals("40P01")) {
                        return UNAVAILABLE;
                    }
                }
                String m = s.getMessage();
                if (m != null && m.contains("Acquisition timeout")) {
                    return UNAVAILABLE;
                }
            }
        }
        return null;
    }

    /** A short random id for correlating a 500 answer with its log line. */
    public static String newRequestId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return Long.toHexString(r.nextLong() | Long.MIN_VALUE) + Integer.toHexString(r.nextInt() | Integer.MIN_VALUE);
    }
}
