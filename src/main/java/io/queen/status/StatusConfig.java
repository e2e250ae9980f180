package io.queen.status;

import io.smallrye.config.ConfigMapping;

/**
 * Limits of the read-side admin routes (resources, status, consumer-group views). Defaults live in
 * {@code application.properties}.
 */
@ConfigMapping(prefix = "queen.status")
public interface StatusConfig {
    /** Largest accepted {@code limit} of a listing; a larger value is clamped to it, so no request is a full scan. */
    int maxLimit();

    /** A consumer group whose largest time lag exceeds this many seconds is reported {@code Lagging}. */
    int laggingStateSeconds();
}
