package io.queen.net;

import io.queen.auth.AuthConfig;
import io.quarkus.vertx.http.HttpServerStart;
import io.quarkus.vertx.http.HttpsServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.jboss.logging.Logger;

/**
 * One warning line at startup for each listener (HTTP, HTTPS, Kafka) that other machines can reach while
 * authentication is off, naming the address and what anyone who reaches it may do. A listener bound to a loopback
 * address (HOST=127.0.0.1, what {@code ./queen run} does) is reachable from this machine only and warns nothing.
 * Stateless; thread-safe.
 */
@ApplicationScoped
public class ExposureWarning {
    private static final Logger LOG = Logger.getLogger(ExposureWarning.class);

    private final AuthConfig auth;

    ExposureWarning(AuthConfig auth) {
        this.auth = auth;
    }

    void httpStarted(@ObservesAsync HttpServerStart start) {   // Quarkus fires it asynchronously
        check("the HTTP listener (API and console)", start.options().getHost(), start.options().getPort(),
                "read, write and delete every queue and message");
    }

    void httpsStarted(@ObservesAsync HttpsServerStart start) {
        check("the HTTPS listener (API and console)", start.options().getHost(), start.options().getPort(),
                "read, write and delete every queue and message");
    }

    /**
     * Logs the warning when authentication is off and {@code host} is not a loopback address: {@code listener} names
     * the listener, {@code exposes} what a caller may do through it.
     */
    public void check(String listener, String host, int port, String exposes) {
        if (auth.enabled() || loopback(host)) {
            return;
        }
        LOG.warnf("authentication is off and %s on %s:%d accepts connections from other machines: anyone who"
                + " reaches it can %s (JWT_ENABLED=true requires a token; listening on 127.0.0.1 keeps it on this"
                + " machine)", listener, host, port, exposes);
    }

    /** Whether {@code host} is a loopback address (or a name resolving to one): reachable from this machine only. */
    public static boolean loopback(String host) {
        if (host == null || host.isBlank()) {
            return false;   // an empty host binds every interface
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether {@code host} binds every interface (0.0.0.0, ::, or empty). */
    public static boolean wildcard(String host) {
        if (host == null || host.isBlank()) {
            return true;
        }
        try {
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
