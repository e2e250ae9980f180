package io.queen.quarkus.deployment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkus.deployment.IsNormal;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.builditem.DockerStatusBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.Startable;
import io.quarkus.deployment.dev.devservices.DevServicesConfig;

/**
 * Dev Services for Queen, modelled on Quarkus's Kafka Dev Services: in dev and test mode, when the application has
 * {@code smallrye-queen} channels and configures no broker for them (no {@code url} on every such channel, no
 * {@code mp.messaging.connector.smallrye-queen.url}), a broker is started for it and
 * {@code mp.messaging.connector.smallrye-queen.url} is set to it. With a container runtime that has the broker's
 * image, that image runs; otherwise the broker's runnable jar runs as a child process with its embedded
 * PostgreSQL. Quarkus owns the broker's lifecycle: it is shared across test classes and dev-mode restarts while
 * this configuration is unchanged, and stopped with the application.
 * <p>
 * Stateless; Quarkus runs build steps on its own threads.
 */
public class QueenDevServicesProcessor {

    private static final Logger LOG = Logger.getLogger(QueenDevServicesProcessor.class);

    static final String FEATURE = "queen";
    static final String CONNECTOR = "smallrye-queen";
    static final String URL = "mp.messaging.connector." + CONNECTOR + ".url";
    private static final Pattern CHANNEL_CONNECTOR = Pattern.compile("mp\\.messaging\\.(incoming|outgoing)\\.([^.]+)\\.connector");

    /** What decides whether a running broker can be reused: equal settings, same broker. */
    record Settings(String mode, Path jar, String image, java.time.Duration startTimeout) {
    }

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep(onlyIfNot = IsNormal.class, onlyIf = DevServicesConfig.Enabled.class)
    DevServicesResultBuildItem devServices(QueenDevServicesConfig config, DockerStatusBuildItem docker) {
        if (!config.enabled()) {
            LOG.debug("Dev Services for Queen disabled (quarkus.queen.devservices.enabled=false)");
            return null;
        }
        Config appConfig = ConfigProvider.getConfig();
        List<String> unconfigured = channelsWithoutUrl(appConfig);
        if (unconfigured.isEmpty() || appConfig.getOptionalValue(URL, String.class).filter(s -> !s.isBlank()).isPresent()) {
            LOG.debug("Dev Services for Queen not started: no smallrye-queen channel without a configured url");
            return null;
        }
        String mode = config.mode().trim().toLowerCase(java.util.Locale.ROOT);
        boolean container = switch (mode) {
            case "container" -> true;
            case "process" -> false;
            default -> docker.isContainerRuntimeAvailable() && ImagePresence.isLocal(config.imageName());
        };
        if (container) {
            Settings settings = new Settings("container", null, config.imageName(), config.startTimeout());
            return owned(settings, () -> new BrokerContainer(config.imageName(), config.startTimeout()),
                    "image " + config.imageName(), unconfigured);
        }
        Optional<Path> jar = config.brokerJar().map(Path::of).or(QueenDevServicesProcessor::locateJar);
        if (jar.isEmpty() || !Files.isRegularFile(jar.get())) {
            LOG.warnf("Dev Services for Queen cannot start a broker for channels %s: no container runtime with the "
                    + "image %s, and no broker jar (%s). Set quarkus.queen.devservices.broker-jar to the broker's "
                    + "target/quarkus-app/quarkus-run.jar, or configure %s.", unconfigured, config.imageName(),
                    jar.map(Path::toString).orElse("none found"), URL);
            return null;
        }
        Path absolute = jar.get().toAbsolutePath().normalize();
        Settings settings = new Settings("process", absolute, null, config.startTimeout());
        return owned(settings, () -> new BrokerProcess(absolute, config.startTimeout()), absolute.toString(),
                unconfigured);
    }

    private static DevServicesResultBuildItem owned(Settings settings, Supplier<? extends Startable> broker,
            String what, List<String> channels) {
        return DevServicesResultBuildItem.owned()
                .feature(FEATURE)
                .serviceName(FEATURE)
                .serviceConfig(settings)
                .startable(broker::get)
                .postStartHook(b -> LOG.infof("Dev Services for Queen started a broker (%s) at %s for channels %s",
                        what, b.getConnectionInfo(), channels))
                .configProvider(Map.of(URL, Startable::getConnectionInfo))
                .build();
    }

    /** The {@code smallrye-queen} channels of the application that name no {@code url} of their own. */
    static List<String> channelsWithoutUrl(Config config) {
        List<String> out = new ArrayList<>();
        for (String name : config.getPropertyNames()) {
            Matcher m = CHANNEL_CONNECTOR.matcher(name);
            if (!m.matches() || !CONNECTOR.equals(config.getOptionalValue(name, String.class).orElse(""))) {
                continue;
            }
            String prefix = "mp.messaging." + m.group(1) + "." + m.group(2);
            if (config.getOptionalValue(prefix + ".url", String.class).filter(s -> !s.isBlank()).isEmpty()) {
                out.add(m.group(2));
            }
        }
        out.sort(null);
        return out;
    }

    /**
     * {@code QUEEN_BROKER_JAR}, else the built broker of the Queen repository that contains the working directory
     * (a parent folder with the {@code queen} script and {@code target/quarkus-app/quarkus-run.jar}).
     */
    static Optional<Path> locateJar() {
        String env = System.getenv("QUEEN_BROKER_JAR");
        if (env != null && !env.isBlank()) {
            return Optional.of(Path.of(env));
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path jar = d.resolve("target/quarkus-app/quarkus-run.jar");
            if (Files.isRegularFile(d.resolve("queen")) && Files.isDirectory(d.resolve("connector"))
                    && Files.isRegularFile(jar)) {
                return Optional.of(jar);
            }
        }
        return Optional.empty();
    }
}
