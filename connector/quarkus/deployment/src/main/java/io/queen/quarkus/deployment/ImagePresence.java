package io.queen.quarkus.deployment;

import org.jboss.logging.Logger;
import org.testcontainers.DockerClientFactory;

/**
 * Whether the container runtime already has an image: the broker's image is not published to a registry, so
 * {@code auto} mode uses it only when it was built or loaded locally, and falls back to the jar otherwise.
 * Stateless, thread-safe.
 */
final class ImagePresence {

    private static final Logger LOG = Logger.getLogger(ImagePresence.class);

    private ImagePresence() {
    }

    static boolean isLocal(String image) {
        try {
            DockerClientFactory.lazyClient().inspectImageCmd(image).exec();
            return true;
        } catch (RuntimeException e) {
            LOG.debugf("image %s not available locally (%s): the broker runs from its jar", image, e.toString());
            return false;
        }
    }
}
