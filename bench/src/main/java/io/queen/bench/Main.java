package io.queen.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/** Entry point: parse flags, run baseline and/or Queen, print the report, exit 0 / 1 / 2. */
public final class Main {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** A short, unique-enough id: base-36 time plus random. Used in queue names and transaction ids. */
    static String newRunId() {
        var rnd = new SecureRandom();
        String time = Long.toString(System.currentTimeMillis() / 1000, 36);
        String r = Integer.toString(rnd.nextInt(36 * 36 * 36), 36);
        return time + "x" + r;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Config cfg;
        try {
            cfg = Cli.parse(args);
        } catch (Cli.UsageException e) {
            err.println("bench: " + e.getMessage());
            err.println("try --help");
            return EXIT_USAGE;
        }
        if (cfg.help()) {
            out.print(Cli.help());
            return EXIT_OK;
        }
        String runId = newRunId();
        List<Report.Run> runs = new ArrayList<>();
        List<String> order = switch (cfg.mode()) {
            case QUEEN -> List.of("queen");
            case BASELINE -> List.of("baseline");
            case BOTH -> List.of("baseline", "queen");
            case PGMQ -> List.of("pgmq");
        };
        for (String m : order) {
            if (order.size() > 1) {
                settle(cfg, out);
            }
            try (Driver d = switch (m) {
                case "queen" -> new QueenDriver(cfg, runId);
                case "pgmq" -> new PgmqDriver(cfg, runId);
                default -> new BaselineDriver(cfg);
            }) {
                Report.Run r = new Runner(cfg, d, runId, out).run();
                runs.add(r);
                out.println();
                out.print(Report.table(r));
                out.println();
            } catch (Exception e) {
                err.println("bench: " + m + " run failed: " + e.getMessage());
                Throwable c = e.getCause();
                if (c != null && c.getMessage() != null) {
                    err.println("bench:   caused by: " + c.getMessage());
                }
                writeJson(cfg, runs, null, EXIT_FAILED, "bench: " + m + " run failed: " + e.getMessage(), err);
                return EXIT_FAILED;
            }
        }
        Report.Ratios ratios = null;
        if (runs.size() == 2) {
            ratios = Report.ratios(runs.get(0), runs.get(1));
            out.print(Report.ratiosTable(ratios));
        }
        boolean passed = runs.stream().allMatch(Report.Run::passed);
        if (cfg.verify() && order.contains("queen") && cfg.pgUrl() != null && !cfg.pgUrl().isEmpty()) {
            passed &= storageHolds(cfg.pgUrl(), out, err);
        }
        int code = passed ? EXIT_OK : EXIT_FAILED;
        String closing = Report.closingLine(runs);
        if (!writeJson(cfg, runs, ratios, code, closing, err)) {
            code = EXIT_FAILED;
        }
        out.println(closing);
        return code;
    }

    /** The broker's storage invariants after the run (a verified run also checks what it left in PostgreSQL). */
    private static boolean storageHolds(String pgUrl, PrintStream out, PrintStream err) {
        try {
            List<String> v = StorageCheck.violations(pgUrl);
            if (v.isEmpty()) {
                out.println("bench: storage invariants hold");
                return true;
            }
            err.println("bench: " + v.size() + " storage invariant violations:");
            v.stream().limit(20).forEach(l -> err.println("bench:   " + l));
            return false;
        } catch (Exception e) {
            // no database access from here (or an older broker without the function): say so, do not fail the run
            out.println("bench: storage invariants not checked: " + e.getMessage());
            return true;
        }
    }

    private static boolean writeJson(Config cfg, List<Report.Run> runs, Report.Ratios ratios, int code,
                                     String closing, PrintStream err) {
        if (cfg.json() == null || cfg.json().isEmpty()) {
            return true;
        }
        try {
            Report.writeJson(new Report.Document("queen-bench", runs, ratios, code, closing), Path.of(cfg.json()));
            return true;
        } catch (Exception e) {
            err.println("bench: cannot write " + cfg.json() + ": " + e.getMessage());
            return false;
        }
    }

    /**
     * Before each run of a {@code --mode both} pair: a CHECKPOINT (best effort; needs superuser or
     * pg_checkpoint), so the second run does not pay for flushing the first run's dirty buffers and WAL, and
     * a short pause for the first run's autovacuum / backend exits.
     */
    static void settle(Config cfg, java.io.PrintStream out) {
        try (java.sql.Connection c = Jdbc.connect(cfg.pgUrl()); java.sql.Statement st = c.createStatement()) {
            st.execute("CHECKPOINT");
        } catch (java.sql.SQLException e) {
            out.println("bench: CHECKPOINT between runs skipped: " + e.getMessage());
        }
        try {
            Thread.sleep(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
