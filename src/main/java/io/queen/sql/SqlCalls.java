package io.queen.sql;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The one way the broker calls SQL outside the hot path: a statement (nearly always {@code SELECT ... FROM
 * queen.some_function_v1(?, ...)}) with positional arguments, its rows mapped to a record by a {@link Row}.
 * Arguments bind by their Java type: {@code String}, {@code UUID}, boxed numbers and booleans, {@code byte[]} as
 * bytea, {@link Instant} as a timestamptz, arrays of strings/UUIDs/longs/integers/doubles/byte arrays as
 * text[]/uuid[]/int8[]/int4[]/float8[]/bytea[], {@code null} as a parameter whose type the function's signature
 * decides.
 *
 * <p>A small class of ours rather than a library (Jdbi): the stores need exactly "bind, call, map rows", which
 * this does in one page without a dependency, reflection or startup cost; a transaction over several calls
 * runs on the caller's connection through {@link #on}. The hot statements (push, pop claim, ack) do not come
 * here: they bind by hand on purpose, see {@code PushStore}, {@code PopStore}, {@code AckStore}.
 *
 * <p>Thread-safe: stateless; every call not made {@link #on} a held connection takes one pooled connection
 * for itself (autocommit), so two calls are two snapshots.
 */
@ApplicationScoped
public class SqlCalls {
    private final DataSource ds;
    /** Set for calls on a connection the caller holds: they all run on it and do not close it. */
    private final Connection held;

    @Inject
    SqlCalls(AgroalDataSource ds) {
        this.ds = ds;
        this.held = null;
    }

    private SqlCalls(Connection held) {
        this.ds = null;
        this.held = held;
    }

    /** A null of a declared type, where the statement alone cannot tell PostgreSQL the parameter's type. */
    public record NullOf(int sqlType) {
    }

    /** A text null (a plain {@code null} argument leaves the type to the function's signature). */
    public static final NullOf NULL_TEXT = new NullOf(Types.VARCHAR);

    /** Maps the current row of a result set (the caller has moved to it). */
    @FunctionalInterface
    public interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** Every row, mapped. */
    public <T> List<T> list(String sql, Row<T> row, Object... args) throws SQLException {
        return query(sql, args, rs -> {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row.map(rs));
            }
            return out;
        });
    }

    /** Calls on a connection the caller holds (inside its transaction); they leave it open. */
    public static SqlCalls on(Connection c) {
        return new SqlCalls(c);
    }

    /** One page of rows and the count of all rows matching, see {@link #page}. */
    public record Page<T>(long total, List<T> rows) {
    }

    /**
     * A page from a function that repeats the matching count on every row in column {@code totalColumn} and
     * answers one filler row when the page is empty: {@code row} maps the filler to null, which is left out.
     */
    public <T> Page<T> page(String sql, String totalColumn, Row<T> row, Object... args) throws SQLException {
        return query(sql, args, rs -> {
            long total = 0;
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                total = rs.getLong(totalColumn);
                T t = row.map(rs);
                if (t != null) {
                    out.add(t);
                }
            }
            return new Page<>(total, out);
        });
    }

    /** The first row mapped, or null when there is none. */
    public <T> T one(String sql, Row<T> row, Object... args) throws SQLException {
        return query(sql, args, rs -> rs.next() ? row.map(rs) : null);
    }

    /** The first column of the first row as a long, 0 when there is no row or it is null. */
    public long number(String sql, Object... args) throws SQLException {
        return query(sql, args, rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    /** The first column of the first row as a boolean, false when there is no row or it is null. */
    public boolean flag(String sql, Object... args) throws SQLException {
        return query(sql, args, rs -> rs.next() && rs.getBoolean(1));
    }

    /** Runs a statement that answers no rows (or whose rows do not matter); returns the update count. */
    public int execute(String sql, Object... args) throws SQLException {
        return withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind(c, ps, args);
                return ps.execute() ? 0 : ps.getUpdateCount();
            }
        });
    }

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private interface OnConnection<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T withConnection(OnConnection<T> work) throws SQLException {
        if (held != null) {
            return work.run(held);
        }
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        }
    }

    private <T> T query(String sql, Object[] args, Reader<T> reader) throws SQLException {
        return withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind(c, ps, args);
                try (ResultSet rs = ps.executeQuery()) {
                    return reader.read(rs);
                }
            }
        });
    }

    private static void bind(Connection c, PreparedStatement ps, Object[] args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int at = i + 1;
            switch (a) {
                case null -> ps.setObject(at, null);
                case NullOf n -> ps.setNull(at, n.sqlType());
                case Instant t -> ps.setObject(at, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
                case byte[] b -> ps.setBytes(at, b);
                case String[] s -> ps.setArray(at, c.createArrayOf("text", s));
                case UUID[] u -> ps.setArray(at, c.createArrayOf("uuid", u));
                case Long[] l -> ps.setArray(at, c.createArrayOf("int8", l));
                case Integer[] n -> ps.setArray(at, c.createArrayOf("int4", n));
                case Double[] d -> ps.setArray(at, c.createArrayOf("float8", d));
                case byte[][] b -> ps.setArray(at, c.createArrayOf("bytea", b));
                case Object[] o -> throw new IllegalArgumentException("no SQL array type for " + o.getClass());
                default -> ps.setObject(at, a);
            }
        }
    }

    /**
     * A pooled connection in an open transaction that holds the transaction advisory lock {@code trySql} (a {@code
     * SELECT pg_try_advisory_xact_lock(...)}) took, for a duty that must be alone on what the lock names; null, with
     * the connection returned, when another holds it. The lock ends with the transaction (commit, rollback, or the
     * connection's loss), so a crashed holder never keeps it. The caller owns the connection.
     */
    public Connection tryLocked(String trySql, Object... args) throws SQLException {
        Connection c = ds.getConnection();
        try {
            c.setAutoCommit(false);
            if (on(c).flag(trySql, args)) {
                return c;
            }
            c.rollback();
            c.setAutoCommit(true);
            c.close();
            return null;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** A bigint column that may be SQL null. */
    public static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** A text[] column as a list (empty for SQL null). */
    public static List<String> strings(Array a) throws SQLException {
        List<String> out = new ArrayList<>();
        if (a != null) {
            for (Object o : (Object[]) a.getArray()) {
                out.add((String) o);
            }
        }
        return out;
    }
}
