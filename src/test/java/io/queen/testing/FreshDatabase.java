package io.queen.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Quarkus test resource: a brand-new database for the annotated test class (use with
 * {@code @WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)}).
 */
public class FreshDatabase implements QuarkusTestResourceLifecycleManager {
    private String database;

    @Override
    public Map<String, String> start() {
        database = TestPostgres.createDatabase("db");
        TestPostgres.Server s = TestPostgres.server();
        return Map.of(
                "quarkus.datasource.jdbc.url", s.jdbcUrl(database),
                "quarkus.datasource.username", s.user(),
                "quarkus.datasource.password", s.password());
    }

    @Override
    public void stop() {
        if (database != null) {
            TestPostgres.dropDatabase(database);
        }
    }
}
