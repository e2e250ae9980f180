package io.queen.kafka.transport;

import io.quarkus.runtime.Quarkus;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import io.queen.tracing.BrokerTracing;
import io.queen.net.ExposureWarning;
import io.queen.schema.SchemaApplier;
import io.queen.shutdown.AdmissionGate;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.JksOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PfxOptions;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.jboss.logging.Logger;

/**
 * The Kafka wire-protocol listener (docs/kafka.md): a Vert.x TCP server on the broker's own Vert.x instance, off
 * unless {@code QUEEN_KAFKA_ENABLED=true}. Its dispatch table is what the {@link KafkaApiProvider} beans register,
 * plus the keys about the table and the connection it serves itself (ApiVersions, the SASL exchange).
 * On shutdown it stops accepting first; requests already running finish inside the broker's drain (they are
 * counted by the {@link AdmissionGate}). It starts listening once the schema is applied: a broker whose database
 * is away at boot waits (unready) with the port closed, and opens it when the database answers.
 *
 * <p>Thread-safety: started and stopped on Quarkus' lifecycle thread; the fields it publishes are volatile.
 */
@ApplicationScoped
public class KafkaListener {
    private static final Logger LOG = Logger.getLogger(KafkaListener.class);

    private final QueenConfig.Kafka config;
    private final String defaultTenant;
    private final Vertx vertx;
    private final AdmissionGate gate;
    private final Instance<KafkaApiProvider> providers;
    private final SaslAuthenticator sasl;
    private final SchemaApplier schema;
    private final ExposureWarning exposure;
    private final BrokerTracing tracing;
    private volatile NetServer server;
    private volatile KafkaApis apis;
    private final MeterRegistry registry;
    private volatile KafkaRequestMeters meters;

    KafkaListener(QueenConfig config, Vertx vertx, AdmissionGate gate, Instance<KafkaApiProvider> providers,
            SaslAuthenticator sasl, SchemaApplier schema, ExposureWarning exposure, MeterRegistry registry,
            BrokerTracing tracing) {
        this.registry = registry;
        this.tracing = tracing;
        this.sasl = sasl;
        this.schema = schema;
        this.exposure = exposure;
        this.config = config.kafka();
        this.defaultTenant = config.defaultTenant();
        this.vertx = vertx;
        this.gate = gate;
        this.providers = providers;
    }

    void start(@Observes @Priority(100) StartupEvent event) throws Exception {
        if (!config.enabled()) {
            return;
        }
        if (schema.ready()) {
            listen();   // a failure (the port taken) fails the boot
            return;
        }
        LOG.infof("Kafka listener on %s:%d opens once the database answers", config.host(), config.port());
        schema.whenReady().thenRun(() -> {
            try {
                listen();
            } catch (Exception e) {
                LOG.errorf("Kafka listener on %s:%d could not start: %s", config.host(), config.port(), e.toString());
                Quarkus.asyncExit(1);
            }
        });
    }

    private synchronized void listen() throws Exception {
        if (server != null) {
            return;
        }
        KafkaApis table = new KafkaApis();
        for (KafkaApiProvider p : providers) {
            p.register(table);
        }
        apis = table;
        // ApiVersions announces the ranges of this table, these entries included
        // a client software name or version outside [a-zA-Z0-9.-] (v3+) is INVALID_REQUEST, as Apache Kafka answers
        table.serve(ApiKeys.API_VERSIONS, 4, (KafkaHandler<ApiVersionsRequestData>) (c, v, r) ->
                CompletableFuture.completedFuture(new ApiVersionsRequest(r, v).isValid()
                        ? new ApiVersionsResponseData().setErrorCode(Errors.NONE.code()).setApiKeys(table.versions())
                        : new ApiVersionsResponseData().setErrorCode(Errors.INVALID_REQUEST.code())));
        // the SASL exchange changes the connection's state: the dispatcher answers it itself
        // v0 too: librdkafka only sees SASL support when the range includes it, kafka-python sends v0
        table.serve(ApiKeys.SASL_HANDSHAKE, 0, 1, (c, v, r) -> {
            throw new IllegalStateException("answered by the dispatcher");
        }).serve(ApiKeys.SASL_AUTHENTICATE, 2, (c, v, r) -> {
            throw new IllegalStateException("answered by the dispatcher");
        });
        KafkaRequestMeters m = new KafkaRequestMeters(registry);
        meters = m;
        KafkaDispatcher dispatcher = new KafkaDispatcher(table, gate, sasl, m, tracing);
        long maxFrame = config.maxFrameBytes().asLongValue();
        NetServerOptions options = new NetServerOptions().setHost(config.host()).setPort(config.port())
                .setTcpNoDelay(true);
        boolean tls = tls(options);
        NetServer s = vertx.createNetServer(options).connectHandler(socket -> {
            String host = socket.remoteAddress() == null ? "" : socket.remoteAddress().hostAddress();
            new KafkaConnection(socket, vertx.getOrCreateContext(), dispatcher, maxFrame,
                    config.maxInflightPerConnection(), new KafkaSession(host, defaultTenant), config.readTimeoutMs(),
                    config.idleTimeoutMs()).start();
        });
        server = s.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        LOG.infof("Kafka listener on %s:%d%s, advertised as %s:%d", config.host(), server.actualPort(),
                tls ? " (TLS)" : "", advertisedHost(), advertisedPort());
        exposure.check("the Kafka listener", config.host(), server.actualPort(),
                "produce, fetch, and create and delete topics");
    }

    /**
     * The broker's TLS certificate ({@code quarkus.http.ssl.certificate.*}: a key store, or a PEM pair) serves the
     * Kafka port too: with one configured the port speaks only TLS (clients use SSL or SASL_SSL).
     */
    private static boolean tls(NetServerOptions options) {
        Config c = ConfigProvider.getConfig();
        Optional<String> keyStore = c.getOptionalValue("quarkus.http.ssl.certificate.key-store-file", String.class);
        Optional<String> password = c.getOptionalValue("quarkus.http.ssl.certificate.key-store-password",
                String.class);
        Optional<String[]> certs = c.getOptionalValue("quarkus.http.ssl.certificate.files", String[].class);
        Optional<String[]> keys = c.getOptionalValue("quarkus.http.ssl.certificate.key-files", String[].class);
        if (keyStore.isPresent()) {
            String file = keyStore.get();
            if (file.endsWith(".jks")) {
                options.setKeyCertOptions(new JksOptions().setPath(file).setPassword(password.orElse(null)));
            } else {
                options.setKeyCertOptions(new PfxOptions().setPath(file).setPassword(password.orElse(null)));
            }
        } else if (certs.isPresent() && keys.isPresent()) {
            options.setKeyCertOptions(new PemKeyCertOptions().setCertPaths(List.of(certs.get()))
                    .setKeyPaths(List.of(keys.get())));
        } else {
            return false;
        }
        options.setSsl(true);
        return true;
    }

    void stop(@Observes @Priority(1) ShutdownEvent event) {
        NetServer s = server;
        if (s != null) {
            server = null;
            s.close();
        }
        KafkaRequestMeters m = meters;
        if (m != null) {
            meters = null;
            m.remove();
        }
    }

    /** The bound port (the configured one, or the one chosen for port 0); -1 when not listening. */
    public int port() {
        NetServer s = server;
        return s == null ? -1 : s.actualPort();
    }

    /**
     * The host name Metadata announces for this broker: the configured one, else the listening address when it is
     * one address (a loopback listener announces the loopback address its clients can reach), else, listening on
     * every interface, this machine's host name.
     */
    public String advertisedHost() {
        return config.advertisedHost().filter(h -> !h.isBlank()).orElseGet(() -> {
            if (!ExposureWarning.wildcard(config.host())) {
                return config.host();
            }
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                return "localhost";
            }
        });
    }

    /** The port Metadata announces for this broker. */
    public int advertisedPort() {
        return config.advertisedPort().orElse(port());
    }

    /** The served API table (null until started). */
    public KafkaApis apis() {
        return apis;
    }
}
