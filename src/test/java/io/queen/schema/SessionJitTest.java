package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.agroal.api.AgroalDataSource;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The broker's database sessions never JIT-compile a plan. The compaction-due listing, estimated above
 * jit_above_cost on a log of a few thousand segments, was compiled at every call (about 0.4 s of PostgreSQL CPU)
 * to run in a few ms. The check forces the lowest JIT threshold, so it holds whatever the server's settings, and
 * first shows that the same statement is compiled where JIT is on.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SessionJitTest {
    static final String DUE = "EXPLAIN (ANALYZE, FORMAT TEXT) SELECT * FROM queen.log_compaction_due_v1(now(), 0,"
            + " 9223372036854775807, 86400000, 0.5, NULL)";

    @Inject
    AgroalDataSource ds;

    @Test
    void brokerSessionsRunWithoutJit() throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                st.execute("SET LOCAL jit_above_cost = 0");
                st.execute("SET LOCAL jit_inline_above_cost = 0");
                st.execute("SET LOCAL jit_optimize_above_cost = 0");
                st.execute("SET LOCAL jit = on");
                assumeTrue(plan(st).contains("JIT:"), "this server cannot JIT-compile (built without LLVM)");
                assertEquals("off", Sql.one(ds, "SHOW jit"), "another broker session, as it connected");
                st.execute("SET LOCAL jit = DEFAULT");  // this session's value, as it connected
                assertFalse(plan(st).contains("JIT:"), "a broker session compiled a plan");
            } finally {
                c.rollback();
            }
        }
    }

    private static String plan(Statement st) throws Exception {
        StringBuilder out = new StringBuilder();
        try (ResultSet rs = st.executeQuery(DUE)) {
            while (rs.next()) {
                out.append(rs.getString(1)).append('\n');
            }
        }
        return out.toString();
    }
}
