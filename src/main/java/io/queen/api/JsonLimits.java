package io.queen.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.quarkus.runtime.configuration.MemorySize;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The JSON parser's limits, aligned with the documented request limits instead of Jackson's defaults (a 20 M
 * character string limit would refuse a 25 MB payload the 64 MB body limit allows): a string may be as long as
 * a whole body ({@code QUEEN_MAX_BODY_BYTES}), a document no longer than a body; nesting stays at
 * {@link #MAX_DEPTH} levels and numbers at {@link #MAX_NUMBER_CHARS} digits, so a hostile body costs at most
 * linear work and is a 400. Applied to the injected {@link ObjectMapper} (tree-read routes, ack batch) and to
 * the push parser's factory. Thread-safe (immutable after start).
 */
@Singleton
public class JsonLimits implements ObjectMapperCustomizer {
    public static final int MAX_DEPTH = 1000;
    public static final int MAX_NUMBER_CHARS = 1000;

    private final long maxBodyBytes;

    JsonLimits(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody) {
        this.maxBodyBytes = maxBody.asLongValue();
    }

    /** The constraints for request bodies of at most {@code maxBodyBytes}. */
    public static StreamReadConstraints forBodies(long maxBodyBytes) {
        return StreamReadConstraints.builder()
                .maxStringLength((int) Math.min(Integer.MAX_VALUE, Math.max(1, maxBodyBytes)))
                .maxDocumentLength(Math.max(1, maxBodyBytes))
                .maxNestingDepth(MAX_DEPTH)
                .maxNumberLength(MAX_NUMBER_CHARS)
                .build();
    }

    /** A streaming factory with {@link #forBodies} constraints. */
    public static JsonFactory factory(long maxBodyBytes) {
        return JsonFactory.builder().streamReadConstraints(forBodies(maxBodyBytes)).build();
    }

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.getFactory().setStreamReadConstraints(forBodies(maxBodyBytes));
    }
}
