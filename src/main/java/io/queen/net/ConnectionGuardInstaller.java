package io.queen.net;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.quarkus.vertx.http.HttpServerStart;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.impl.HttpServerImpl;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.impl.TCPServerBase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Puts one {@link ConnectionGuard} in front of the plain-HTTP listening socket once the server is listening.
 * Neither Quarkus nor Vert.x offers a hook that sees a connection before its first request (Quarkus' own
 * {@code max-connections} takes the server's only connection handler and has no per-address cap), so this reads
 * the bound channel from Vert.x's shared server (an internal field) and adds the guard to that channel's
 * pipeline, where accepted connections pass by. If that ever fails (a Vert.x upgrade), the broker logs an error
 * and runs without the guard rather than not starting. Thread-safe.
 */
@ApplicationScoped
public class ConnectionGuardInstaller {
    private static final Logger LOG = Logger.getLogger(ConnectionGuardInstaller.class);

    private final ConnectionGuard guard;
    private final Set<Channel> guarded = Collections.newSetFromMap(new ConcurrentHashMap<>());

    ConnectionGuardInstaller(ConnectionLimits limits, MeterRegistry registry) {
        this.guard = new ConnectionGuard(limits.maxConnections(), limits.maxConnectionsPerAddress(),
                limits.headerTimeoutMs(), limits.firstByteTimeoutMs(), limits.keepAliveTimeoutMs(),
                limits.reservedConnections(), limits.reservedPerAddress());
        Gauge.builder("queen.http.connections.open", guard, ConnectionGuard::open)
                .description("HTTP connections open (counted by the connection guard)").register(registry);
        FunctionCounter.builder("queen.http.connections.rejected", guard.rejected, a -> a.doubleValue())
                .description("connections closed at accept: total or per-address cap reached").register(registry);
        FunctionCounter.builder("queen.http.connections.timed.out", guard.timedOut, a -> a.doubleValue())
                .description("connections closed for an unfinished request head or an idle keep-alive")
                .register(registry);
    }

    void started(@ObservesAsync HttpServerStart start, Vertx vertx) {   // Quarkus fires it asynchronously
        if (start.options().isSsl()) {
            return;
        }
        try {
            Field bind = TCPServerBase.class.getDeclaredField("bindFuture");
            bind.setAccessible(true);
            for (HttpServerImpl server : ((VertxInternal) vertx).sharedHttpServers().values()) {
                if (server.actualPort() != start.options().getPort() && start.options().getPort() != 0) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                Future<Channel> f = (Future<Channel>) bind.get(server);
                Channel ch = f == null ? null : f.result();
                if (ch != null && guarded.add(ch)) {
                    ch.pipeline().addFirst("queen-connection-guard", guard);
                    LOG.debugf("connection guard on %s", ch.localAddress());
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.error("connection caps and header timeout NOT active: cannot reach the HTTP listening socket", e);
        }
        if (guarded.isEmpty()) {
            LOG.error("connection caps and header timeout NOT active: no HTTP listening socket found");
        }
    }

    /** Connections the guard counts as open (for tests and the gauge). */
    public int open() {
        return guard.open();
    }

    /** True once the guard sits on a listening socket. */
    public boolean active() {
        return !guarded.isEmpty();
    }
}
