package io.queen.connector.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.inject.se.SeContainer;
import jakarta.enterprise.inject.se.SeContainerInitializer;

import org.eclipse.microprofile.config.ConfigProvider;

import io.queen.connector.QueenConnector;
import io.queen.connector.QueenTransactions;
import io.queen.connector.commit.BatchedCommitHandler;
import io.queen.connector.commit.ImmediateCommitHandler;
import io.queen.connector.fault.QueenDeadLetterQueue;
import io.queen.connector.fault.QueenFailStop;
import io.queen.connector.fault.QueenIgnoreFailure;
import io.queen.connector.fault.QueenRetryFailure;
import io.smallrye.config.SmallRyeConfigProviderResolver;
import io.smallrye.reactive.messaging.providers.MediatorFactory;
import io.smallrye.reactive.messaging.providers.connectors.ExecutionHolder;
import io.smallrye.reactive.messaging.providers.connectors.WorkerPoolRegistry;
import io.smallrye.reactive.messaging.providers.extension.ChannelProducer;
import io.smallrye.reactive.messaging.providers.extension.EmitterFactoryImpl;
import io.smallrye.reactive.messaging.providers.extension.HealthCenter;
import io.smallrye.reactive.messaging.providers.extension.LegacyEmitterFactoryImpl;
import io.smallrye.reactive.messaging.providers.extension.MediatorManager;
import io.smallrye.reactive.messaging.providers.extension.MutinyEmitterFactoryImpl;
import io.smallrye.reactive.messaging.providers.extension.ReactiveMessagingExtension;
import io.smallrye.reactive.messaging.providers.impl.ConfiguredChannelFactory;
import io.smallrye.reactive.messaging.providers.impl.ConnectorFactories;
import io.smallrye.reactive.messaging.providers.impl.InternalChannelRegistry;
import io.smallrye.reactive.messaging.providers.wiring.Wiring;

/**
 * A plain SmallRye Reactive Messaging application in a Weld SE container: the provider's beans, the connector's
 * beans and the given application beans, configured through system properties (MicroProfile Config). Used
 * in-process by the tests and, through {@link AppMain}, as a separate JVM that tests kill. One at a time per JVM
 * (configuration is global); not thread-safe.
 */
public final class WeldApp implements AutoCloseable {

    private final SeContainer container;
    private final List<String> keys;

    private WeldApp(SeContainer container, List<String> keys) {
        this.container = container;
        this.keys = keys;
    }

    public static WeldApp start(Map<String, String> config, Class<?>... beans) {
        List<String> keys = new ArrayList<>(config.keySet());
        config.forEach(System::setProperty);
        releaseConfig();
        // Builds and registers the configuration from the properties just set.
        ConfigProvider.getConfig(Thread.currentThread().getContextClassLoader());
        SeContainerInitializer init = SeContainerInitializer.newInstance();
        init.disableDiscovery();
        init.addBeanClasses(MediatorFactory.class, Wiring.class, ExecutionHolder.class, MediatorManager.class,
                WorkerPoolRegistry.class, InternalChannelRegistry.class, ChannelProducer.class,
                ConfiguredChannelFactory.class, ConnectorFactories.class, HealthCenter.class, EmitterFactoryImpl.class,
                MutinyEmitterFactoryImpl.class, LegacyEmitterFactoryImpl.class,
                io.smallrye.config.inject.ConfigProducer.class);
        init.addBeanClasses(QueenConnector.class, QueenTransactions.class, BatchedCommitHandler.Factory.class,
                ImmediateCommitHandler.Factory.class, QueenFailStop.Factory.class, QueenIgnoreFailure.Factory.class,
                QueenRetryFailure.Factory.class, QueenDeadLetterQueue.Factory.class);
        init.addBeanClasses(beans);
        init.addExtensions(new ReactiveMessagingExtension());
        try {
            return new WeldApp(init.initialize(), keys);
        } catch (RuntimeException e) {
            // A failed start must not leave its configuration behind for the next application of this JVM.
            keys.forEach(System::clearProperty);
            releaseConfig();
            throw e;
        }
    }

    private static void releaseConfig() {
        SmallRyeConfigProviderResolver.instance()
                .releaseConfig(ConfigProvider.getConfig(Thread.currentThread().getContextClassLoader()));
    }

    public <T> T bean(Class<T> type) {
        return container.select(type).get();
    }

    public QueenConnector connector() {
        return container.select(QueenConnector.class, new ConnectorLiteral()).get();
    }

    public HealthCenter health() {
        return container.select(HealthCenter.class).get();
    }

    /** CDI literal of {@code @Connector("smallrye-queen")}. */
    @SuppressWarnings("all")
    private static final class ConnectorLiteral
            extends jakarta.enterprise.util.AnnotationLiteral<org.eclipse.microprofile.reactive.messaging.spi.Connector>
            implements org.eclipse.microprofile.reactive.messaging.spi.Connector {
        @Override
        public String value() {
            return QueenConnector.CONNECTOR_NAME;
        }
    }

    @Override
    public void close() {
        if (container.isRunning()) {
            container.close();
        }
        keys.forEach(System::clearProperty);
        releaseConfig();
    }
}
