package io.queen.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.Map;

/**
 * A test profile that only overrides settings: a subclass names them as (name, value) pairs in its no-argument
 * constructor, which Quarkus calls. Immutable.
 */
public abstract class Settings implements QuarkusTestProfile {
    private final Map<String, String> overrides = new HashMap<>();

    protected Settings(String... nameThenValue) {
        for (int i = 0; i < nameThenValue.length; i += 2) {
            overrides.put(nameThenValue[i], nameThenValue[i + 1]);
        }
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.copyOf(overrides);
    }
}
