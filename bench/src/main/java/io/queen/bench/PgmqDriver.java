package io.queen.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * pgmq (the PostgreSQL extension, or its plain-SQL install) driven through its own SQL API: push =
 * {@code pgmq.send_batch(queue, jsonb[])}, pop = {@code pgmq.read(queue, vt, qty)} ({@code pgmq.read_with_poll} with a
 * 10 ms poll interval for a long-poll), ack = {@code pgmq.delete(queue, bigint[])}; auto-ack = {@code pgmq.pop}.
 * pgmq has no partitions: every partition of a run's queue maps onto one pgmq queue, and order is checked per
 * consumer (a consumer's successive reads see one producer's messages in push order; several consumers reading one
 * queue at once have no common order). The {@code pgmq} schema must exist in {@code --pg-url}'s database
 * ({@code bench/scripts/pgmq-install.sh}). One JDBC connection per worker, autocommit. Sessions are used by one worker
 * each; the driver itself is immutable after {@link #setup}.
 */
public final class PgmqDriver implements Driver {

    static final int VISIBILITY_SECONDS = 60;
    static final int POLL_INTERVAL_MS = 10;

    private final Config cfg;
    private final String runId;
    private final Set<String> queues = new LinkedHashSet<>();

    public PgmqDriver(Config cfg, String runId) {
        this.cfg = cfg;
        this.runId = runId;
    }

    /** pgmq queue names are lower-case letters, digits and underscores (it prefixes them with {@code q_}). */
    static String pgmqName(String queue) {
        return queue.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }

    @Override
    public String name() {
        return "pgmq";
    }

    @Override
    public void setup(List<Target> targets) throws Exception {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT to_regproc('pgmq.create') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new IllegalStateException("pgmq is not installed in this database (bench/scripts/pgmq-install.sh)");
                }
            }
            for (Target t : targets) {
                queues.add(pgmqName(t.queue()));
            }
            for (String q : queues) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pgmq.create(?)")) {
                    ps.setString(1, q);
                    ps.execute();
                }
            }
        }
    }

    @Override
    public ProducerSession producer(int id) throws SQLException {
        Connection c = Jdbc.connect(cfg.pgUrl(), true);
        PreparedStatement send = c.prepareStatement("SELECT pgmq.send_batch(?, ?::jsonb[])");
        return new ConnectionSession.Producer(c) {
            @Override
            public List<PushOutcome> push(Target target, List<OutMessage> batch) {
                String[] msgs = new String[batch.size()];
                for (int i = 0; i < msgs.length; i++) {
                    msgs[i] = batch.get(i).payload();
                }
                try {
                    send.setString(1, pgmqName(target.queue()));
                    send.setArray(2, c.createArrayOf("text", msgs));
                    int n = 0;
                    try (ResultSet rs = send.executeQuery()) {
                        while (rs.next()) {
                            n++;
                        }
                    }
                    if (n != msgs.length) {
                        return Driver.repeat(msgs.length, new PushOutcome(PushStatus.FAILED, "push-short-" + n));
                    }
                    return Driver.queued(msgs.length);
                } catch (SQLException e) {
                    return Driver.pushFailed(msgs.length, e);
                }
            }
        };
    }

    @Override
    public ConsumerSession consumer(int id, String group) throws SQLException {
        Connection c = Jdbc.connect(cfg.pgUrl(), true);
        boolean auto = cfg.autoAck();
        PreparedStatement read = c.prepareStatement(auto ? "SELECT msg_id, message FROM pgmq.pop(?, ?)"
                : "SELECT msg_id, message FROM pgmq.read(?, " + VISIBILITY_SECONDS + ", ?)");
        PreparedStatement poll = c.prepareStatement("SELECT msg_id, message FROM pgmq.read_with_poll(?, "
                + VISIBILITY_SECONDS + ", ?, ?, " + POLL_INTERVAL_MS + ")");
        PreparedStatement delete = c.prepareStatement("SELECT pgmq.delete(?, ?::bigint[])");
        String order = "pgmq#c" + id;
        return new ConnectionSession.Consumer(c) {
            @Override
            public PopResult pop(String queue, Target target, int batch, int waitMs) {
                String q = pgmqName(target != null ? target.queue() : queue);
                // pgmq.pop takes no wait; auto-ack long-polls are emulated by re-popping every poll interval
                boolean server = waitMs > 0 && !auto;
                // a server-side poll waits itself: one read
                return Driver.poll(server ? 0 : waitMs, POLL_INTERVAL_MS, () -> {
                    PreparedStatement ps = server ? poll : read;
                    ps.setString(1, q);
                    ps.setInt(2, batch);
                    if (server) {
                        ps.setInt(3, Math.max(1, (waitMs + 999) / 1000));
                    }
                    List<long[]> ids = new ArrayList<>();
                    List<String> bodies = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ids.add(new long[] {rs.getLong(1), bodies.size()});
                            bodies.add(rs.getString(2));
                        }
                    }
                    ids.sort(Comparator.comparingLong(a -> a[0]));
                    List<Delivery> out = new ArrayList<>(ids.size());
                    for (long[] r : ids) {
                        Payloads.Stamp st = Payloads.stampOfText(bodies.get((int) r[1]));
                        String txn = st == null ? null : Payloads.transactionId(runId, st.producer(), st.seq());
                        out.add(new Delivery(txn, order, st, new Handle(q, r[0])));
                    }
                    return out;
                });
            }

            @Override
            public List<AckOutcome> ack(List<Delivery> deliveries) {
                if (deliveries.isEmpty()) {
                    return List.of();
                }
                String q = ((Handle) deliveries.get(0).ackHandle()).queue();
                Long[] ids = new Long[deliveries.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = ((Handle) deliveries.get(i).ackHandle()).id();
                }
                try {
                    delete.setString(1, q);
                } catch (SQLException e) {
                    return Driver.repeat(ids.length, new AckOutcome(false, "ack-sql-" + e.getSQLState()));
                }
                return Jdbc.deleteIds(c, delete, 2, ids, "ack-failed: message not found");
            }
        };
    }

    /** What an ack needs: the pgmq queue and the message id. */
    private record Handle(String queue, long id) {}




    @Override
    public Storage storageAfterPush(long pushed) {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); Statement st = c.createStatement()) {
            long bytes = 0;
            long rows = 0;
            for (String q : queues) {
                try (ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('pgmq.q_" + q + "'),"
                        + " (SELECT count(*) FROM pgmq.q_" + q + ")")) {
                    rs.next();
                    bytes += rs.getLong(1);
                    rows += rs.getLong(2);
                }
            }
            Double per = rows > 0 ? bytes / (double) rows : null;
            return new Storage(bytes, rows, per, per,
                    "pg_total_relation_size of the pgmq queue tables after the push phase / live rows");
        } catch (SQLException e) {
            return Storage.unavailable("n/a: " + e.getMessage());
        }
    }

    @Override
    public void cleanup() {
        try (Connection c = Jdbc.connect(cfg.pgUrl())) {
            for (String q : queues) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pgmq.drop_queue(?)")) {
                    ps.setString(1, q);
                    ps.execute();
                }
            }
        } catch (SQLException e) {
            // best effort
        }
    }
}
