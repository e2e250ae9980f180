package io.queen.status;

import io.agroal.api.AgroalDataSource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test class reading {@link KnownDataSet}: the data set is built in its fresh database before its first test, in
 * {@code @BeforeEach} (once Quarkus has set the test port, which a {@code @BeforeAll} runs before). Needs a
 * {@code PER_CLASS} test instance, which keeps the flag from test to test.
 */
public abstract class OnKnownDataSet {
    @Inject
    protected AgroalDataSource ds;

    private boolean built;

    @BeforeEach
    protected void dataSet() {
        if (!built) {
            KnownDataSet.build(ds);
            built = true;
        }
    }
}
