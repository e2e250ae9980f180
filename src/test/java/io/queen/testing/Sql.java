package io.queen.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Tiny SQL helpers for asserting the state the storage model makes promises about. */
public final class Sql {
    private Sql() {
    }

    public static long count(DataSource ds, String sql) {
        return Long.parseLong(one(ds, sql));
    }

    public static String one(DataSource ds, String sql) {
        List<List<Object>> rows = rows(ds, sql);
        return rows.isEmpty() || rows.get(0).get(0) == null ? null : String.valueOf(rows.get(0).get(0));
    }

    public static List<List<Object>> rows(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<List<Object>> out = new ArrayList<>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>(n);
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getObject(i));
                }
                out.add(row);
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    public static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
