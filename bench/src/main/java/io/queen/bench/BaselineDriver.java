package io.queen.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The comparison point: a row-per-message queue of the common kind, implemented directly on PostgreSQL in
 * schema {@code bench_baseline}. Push = one row per message (one INSERT statement per
 * message in one JDBC batch and one transaction per push batch; {@code --baseline-insert multirow}: one multi-row
 * INSERT per batch); claim =
 * {@code UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED LIMIT n) RETURNING ...}; ack = DELETE by id.
 * One JDBC connection per worker, autocommit (each statement is its own transaction).
 */
public final class BaselineDriver implements Driver {

    public static final String SCHEMA = "bench_baseline";
    /** Poll interval used to emulate a long-poll: the baseline has no wake-up signal. */
    static final int POLL_INTERVAL_MS = 20;

    static final String DDL_TABLE = """
            CREATE TABLE bench_baseline.messages (
              id bigserial PRIMARY KEY,
              partition text NOT NULL,
              payload jsonb NOT NULL,
              transaction_id text NOT NULL,
              created_at timestamptz NOT NULL DEFAULT now(),
              lease_until timestamptz,
              leased_by text)""";
    static final String DDL_INDEX = "CREATE INDEX messages_partition_id_idx ON bench_baseline.messages (partition, id)";

    static final String CLAIM = """
            UPDATE bench_baseline.messages SET lease_until = now() + interval '60 s', leased_by = ?
             WHERE id IN (SELECT id FROM bench_baseline.messages
                           WHERE partition = ? AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id FOR UPDATE SKIP LOCKED LIMIT ?)
            RETURNING id, payload, transaction_id, partition""";
    static final String CLAIM_ANY = """
            UPDATE bench_baseline.messages SET lease_until = now() + interval '60 s', leased_by = ?
             WHERE id IN (SELECT id FROM bench_baseline.messages
                           WHERE partition LIKE ? AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id FOR UPDATE SKIP LOCKED LIMIT ?)
            RETURNING id, payload, transaction_id, partition""";
    /** Auto-ack: claim and delete in one statement. */
    static final String TAKE = """
            DELETE FROM bench_baseline.messages
             WHERE id IN (SELECT id FROM bench_baseline.messages
                           WHERE partition = ? AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id FOR UPDATE SKIP LOCKED LIMIT ?)
            RETURNING id, payload, transaction_id, partition""";
    static final String TAKE_ANY = """
            DELETE FROM bench_baseline.messages
             WHERE id IN (SELECT id FROM bench_baseline.messages
                           WHERE partition LIKE ? AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id FOR UPDATE SKIP LOCKED LIMIT ?)
            RETURNING id, payload, transaction_id, partition""";
    static final String ACK = "DELETE FROM bench_baseline.messages WHERE id = ANY(?) RETURNING id";

    private final Config cfg;

    public BaselineDriver(Config cfg) {
        this.cfg = cfg;
    }

    @Override
    public String name() {
        return "baseline";
    }

    static String insertSql(int rows) {
        var sb = new StringBuilder("INSERT INTO bench_baseline.messages (partition, payload, transaction_id) VALUES ");
        for (int i = 0; i < rows; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("(?, ?::jsonb, ?)");
        }
        return sb.toString();
    }

    @Override
    public void setup(List<Target> targets) throws Exception {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            st.execute("CREATE SCHEMA " + SCHEMA);
            st.execute(DDL_TABLE);
            st.execute(DDL_INDEX);
        }
    }

    @Override
    public ProducerSession producer(int id) throws SQLException {
        Connection c = Jdbc.connect(cfg.pgUrl(), cfg.multiRowInsert());
        Map<Integer, PreparedStatement> byRows = new HashMap<>();
        PreparedStatement single = cfg.multiRowInsert() ? null : c.prepareStatement(insertSql(1));
        return new ConnectionSession.Producer(c) {
            @Override
            public List<PushOutcome> push(Target target, List<OutMessage> batch) {
                if (!cfg.multiRowInsert()) {
                    // one INSERT statement per message, sent as one JDBC batch, one commit per push batch
                    try {
                        for (OutMessage m : batch) {
                            single.setString(1, target.key());
                            single.setString(2, m.payload());
                            single.setString(3, m.transactionId());
                            single.addBatch();
                        }
                        single.executeBatch();
                        c.commit();
                        return Driver.queued(batch.size());
                    } catch (SQLException e) {
                        try {
                            single.clearBatch();
                            c.rollback();
                        } catch (SQLException ignored) {
                            // the connection is broken; the next push reports it
                        }
                        return Driver.pushFailed(batch.size(), e);
                    }
                }
                try {
                    PreparedStatement ps = byRows.get(batch.size());
                    if (ps == null) {
                        ps = c.prepareStatement(insertSql(batch.size()));
                        byRows.put(batch.size(), ps);
                    }
                    int i = 1;
                    for (OutMessage m : batch) {
                        ps.setString(i++, target.key());
                        ps.setString(i++, m.payload());
                        ps.setString(i++, m.transactionId());
                    }
                    ps.executeUpdate();
                    return Driver.queued(batch.size());
                } catch (SQLException e) {
                    return Driver.pushFailed(batch.size(), e);
                }
            }
        };
    }

    @Override
    public ConsumerSession consumer(int id, String group) throws SQLException {
        Connection c = Jdbc.connect(cfg.pgUrl(), true);
        boolean auto = cfg.autoAck();
        PreparedStatement one = c.prepareStatement(auto ? TAKE : CLAIM);
        PreparedStatement any = c.prepareStatement(auto ? TAKE_ANY : CLAIM_ANY);
        PreparedStatement ack = c.prepareStatement(ACK);
        String worker = "consumer-" + id;
        return new ConnectionSession.Consumer(c) {
            @Override
            public PopResult pop(String queue, Target target, int batch, int waitMs) {
                return Driver.poll(waitMs, POLL_INTERVAL_MS, () -> {
                    PreparedStatement ps = target != null ? one : any;
                    int i = 1;
                    if (!auto) {
                        ps.setString(i++, worker);
                    }
                    ps.setString(i++, target != null ? target.key() : QueenDriver.likePrefix(queue + "/"));
                    ps.setInt(i, batch);
                    List<Row> rows = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)));
                        }
                    }
                    rows.sort(Comparator.comparingLong(Row::id));
                    List<Delivery> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new Delivery(r.txn(), r.partition(), Payloads.stampOfText(r.payload()), r.id()));
                    }
                    return out;
                });
            }

            @Override
            public List<AckOutcome> ack(List<Delivery> deliveries) {
                Long[] ids = new Long[deliveries.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = (Long) deliveries.get(i).ackHandle();
                }
                return Jdbc.deleteIds(c, ack, 1, ids, "ack-failed: row not found");
            }
        };
    }

    private record Row(long id, String payload, String txn, String partition) {}




    @Override
    public Storage storageAfterPush(long pushed) {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('bench_baseline.messages'),"
                     + " (SELECT count(*) FROM bench_baseline.messages)")) {
            rs.next();
            long bytes = rs.getLong(1);
            long rows = rs.getLong(2);
            String note = "pg_total_relation_size (heap + TOAST + indexes) after the push phase / live rows";
            if (cfg.consumers() > 0 && !cfg.phased()) {
                note += "; consumers ran concurrently, so the size also holds the dead tuples of acked rows"
                        + " (use --phased for a clean figure)";
            }
            Double per = rows > 0 ? bytes / (double) rows : null;
            return new Storage(bytes, rows, per, per, note);
        } catch (SQLException e) {
            return Storage.unavailable("n/a: " + e.getMessage());
        }
    }

    @Override
    public void cleanup() {
        try (Connection c = Jdbc.connect(cfg.pgUrl()); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        } catch (SQLException e) {
            // best effort
        }
    }
}
