package io.queen.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.HashMap;
import java.util.Map;

/**
 * Quarkus test resource: a brand-new database for the annotated test class (use with
 * {@code @WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)}). Its
 * {@code initArgs} are the class's own runtime settings ({@code @ResourceArg(name = "queen.pop.max-response-bytes",
 * value = "10000")}), so a test that needs a setting or two declares them beside its database instead of in a test
 * profile of its own. Build-time settings still need a profile ({@link Settings}), and so does a test that reads a
 * gauge of its application: a restart for new test resources keeps the class loader, and {@code queen_pop_parked}
 * then read 0 whatever was parked.
 */
public class FreshDatabase implements QuarkusTestResourceLifecycleManager {
    private String database;
    private Map<String, String> settings = Map.of();

    @Override
    public void init(Map<String, String> initArgs) {
        settings = Map.copyOf(initArgs);
    }

    @Override
    public Map<String, String> start() {
        database = TestPostgres.createDatabase("db");
        TestPostgres.Server s = TestPostgres.server();
        Map<String, String> config = new HashMap<>(settings);
        config.put("quarkus.datasource.jdbc.url", s.jdbcUrl(database));
        config.put("quarkus.datasource.username", s.user());
        config.put("quarkus.datasource.password", s.password());
        return config;
    }

    @Override
    public void stop() {
        if (database != null) {
            TestPostgres.dropDatabase(database);
        }
    }
}
