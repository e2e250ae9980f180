package io.queen.streams;

import io.smallrye.config.ConfigMapping;

/** Limits of the {@code /streams/v1} routes. Defaults live in {@code application.properties}. */
@ConfigMapping(prefix = "queen.streams")
public interface StreamsConfig {

    /** Longest state key, in UTF-8 bytes (a longer key answers 400 and changes nothing). */
    int maxKeyBytes();

    /** State ops accepted in one cycle (400 above). */
    int maxStateOps();
}
