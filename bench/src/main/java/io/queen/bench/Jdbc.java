package io.queen.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** JDBC helpers: connecting with the {@code PGPASSWORD} fallback and reading host/port from the URL. */
public final class Jdbc {

    private static final Pattern HOST_PORT = Pattern.compile("^jdbc:postgresql://([^/:?]+|\\[[^]]+])(?::(\\d+))?(?:/|$|\\?)");

    public record HostPort(String host, int port) {}

    private static final Pattern DATABASE = Pattern.compile("^jdbc:postgresql://[^/?]*/([^?;]+)");

    private Jdbc() {}

    public static Connection connect(String url) throws SQLException {
        Properties props = new Properties();
        String pw = System.getenv("PGPASSWORD");
        if (pw != null && !url.contains("password=")) {
            props.setProperty("password", pw);
        }
        props.setProperty("ApplicationName", "queen-bench");
        return DriverManager.getConnection(url, props);
    }

    /** A connection in the given auto-commit mode. */
    public static Connection connect(String url, boolean autoCommit) throws SQLException {
        Connection c = connect(url);
        c.setAutoCommit(autoCommit);
        return c;
    }

    /** Host and port of a {@code jdbc:postgresql://host[:port]/db} URL (port 5432 when absent), or null. */
    public static HostPort hostPort(String url) {
        Matcher m = HOST_PORT.matcher(url);
        if (!m.find()) {
            return null;
        }
        int port = m.group(2) == null ? 5432 : Integer.parseInt(m.group(2));
        return new HostPort(m.group(1), port);
    }

    /** Database name of a {@code jdbc:postgresql://host[:port]/db} URL, or null when the URL names none. */
    public static String database(String url) {
        Matcher m = DATABASE.matcher(url);
        return m.find() && !m.group(1).isEmpty() ? m.group(1) : null;
    }

    /** Closes a worker's connection at the end of a run; a broken connection has nothing left to say. */
    public static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // ignore
        }
    }

    /**
     * Runs an ack's {@code DELETE ... RETURNING id} whose parameter {@code idParam} is the bigint[] of {@code ids}
     * (other parameters already set): one outcome per id, in order, {@code missing} for an id nothing deleted.
     */
    static java.util.List<Driver.AckOutcome> deleteIds(Connection c, java.sql.PreparedStatement ps, int idParam,
                                                       Long[] ids, String missing) {
        try {
            ps.setArray(idParam, c.createArrayOf("bigint", ids));
            java.util.Set<Long> deleted = new java.util.HashSet<>();
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    deleted.add(rs.getLong(1));
                }
            }
            java.util.List<Driver.AckOutcome> out = new java.util.ArrayList<>(ids.length);
            for (Long id : ids) {
                out.add(deleted.contains(id) ? new Driver.AckOutcome(true, null) : new Driver.AckOutcome(false, missing));
            }
            return out;
        } catch (SQLException e) {
            return Driver.repeat(ids.length, new Driver.AckOutcome(false, "ack-sql-" + e.getSQLState()));
        }
    }
}
