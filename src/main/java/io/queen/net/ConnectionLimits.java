package io.queen.net;

import io.smallrye.config.ConfigMapping;

/**
 * Connection caps and timeouts of the HTTP server (defaults in {@code application.properties}, docs/operating.md
 * "Connection limits"). They exist so that idle or half-sent connections cannot use up the process's file
 * descriptors or the event loops while real clients wait.
 */
@ConfigMapping(prefix = "queen.http")
public interface ConnectionLimits {
    /** Open connections accepted in total; beyond it a new connection is closed at once. 0 = no cap. */
    int maxConnections();

    /** Open connections accepted from one client address; beyond it a new one is closed at once. 0 = no cap. */
    int maxConnectionsPerAddress();

    /**
     * Milliseconds a connection has, from its first byte (or from accepting it), to complete a request head
     * (request line + headers). A half-sent head is closed after this, however slowly its bytes trickle in.
     */
    long headerTimeoutMs();

    /**
     * Milliseconds a new connection may stay silent before its first byte (at most the header timeout): clients
     * send their request as soon as they connect, so an idle socket frees its slot sooner than it is re-taken.
     */
    long firstByteTimeoutMs();

    /**
     * The last slots of {@link #maxConnections} kept for addresses holding fewer than
     * {@link #reservedPerAddress} connections: a connection that would take one from an address holding more is
     * closed at once. 0 = no reserve.
     */
    int reservedConnections();

    /** Connections an address may hold and still take a reserved slot. */
    int reservedPerAddress();

    /**
     * Milliseconds a keep-alive connection may sit between an answer and the next request's first byte. A
     * request in progress (a parked long poll included) is not idle in this sense; the server's idle timeout
     * ({@code quarkus.http.idle-timeout}, above the longest long poll) covers it.
     */
    long keepAliveTimeoutMs();
}
