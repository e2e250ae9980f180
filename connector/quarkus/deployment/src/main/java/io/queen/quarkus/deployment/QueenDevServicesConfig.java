package io.queen.quarkus.deployment;

import java.time.Duration;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Build-time configuration of Dev Services for Queen ({@code quarkus.queen.devservices.*}). Immutable.
 */
@ConfigMapping(prefix = "quarkus.queen.devservices")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
public interface QueenDevServicesConfig {

    /**
     * Whether a broker is started in dev and test mode when no {@code url} is configured for the application's
     * {@code smallrye-queen} channels (nor {@code mp.messaging.connector.smallrye-queen.url}).
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * How the broker runs: {@code auto} (the image when a container runtime is available and has it, else the
     * jar), {@code container}, or {@code process} (the jar as a child process).
     */
    @WithDefault("auto")
    String mode();

    /**
     * The broker's runnable jar ({@code target/quarkus-app/quarkus-run.jar} of the Queen repository's root module).
     * Default: {@code QUEEN_BROKER_JAR}, else the first parent folder of the working directory that is a Queen
     * repository with a built broker.
     */
    Optional<String> brokerJar();

    /** The broker's container image. */
    @WithDefault("queen/queen-broker:latest")
    String imageName();

    /** How long the broker may take to answer {@code /health}. */
    @WithDefault("120s")
    Duration startTimeout();
}
