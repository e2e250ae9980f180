package io.queen.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * GNU-style command line ({@code --name value} or {@code --name=value}; a boolean flag given without a
 * value means {@code true}). Resolution order: built-in defaults, then {@code --preset}, then the flags
 * given explicitly.
 */
public final class Cli {

    /** A flag: name without dashes, default value as text ({@code ""} = unset), help line. */
    public record Flag(String name, String def, String help) {}

    /** A malformed command line: the tool exits with code 2. */
    public static final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    public static final List<Flag> FLAGS = List.of(
            new Flag("url", "http://127.0.0.1:6632", "broker base URL (the only HTTP target)"),
            new Flag("queue", "bench", "queue name prefix; queues are named <prefix>-<run-id>-q<i>"),
            new Flag("queues", "1", "number of queues"),
            new Flag("partitions", "10", "partitions per queue (named p0..pN-1)"),
            new Flag("payload-bytes", "256", "size of each JSON payload in bytes (padded)"),
            new Flag("push-batch", "100", "messages per push request (one partition per request)"),
            new Flag("producers", "4", "concurrent producers"),
            new Flag("pop-batch", "100", "batch size per pop request"),
            new Flag("consumers", "4", "consumers (per group when --groups > 0); 0 = push only"),
            new Flag("groups", "0", "0 = queue mode; N = N consumer groups g0..gN-1, each with --consumers consumers"),
            new Flag("ack", "explicit", "explicit (POST /api/v1/ack/batch) | auto (pop with autoAck=true)"),
            new Flag("rate", "0", "open-loop target msgs/s across all producers; 0 = closed loop"),
            new Flag("duration", "30", "steady-phase length in seconds (ignored when --messages is set)"),
            new Flag("messages", "0", "total messages to push; when > 0 it wins over --duration"),
            new Flag("warmup", "5", "seconds excluded from the figures at the start"),
            new Flag("dedup-window", "0", "queue option dedupWindowSeconds; 0 = broker default (not sent)"),
            new Flag("retention", "false", "set retentionEnabled + completedRetentionSeconds 60 on the queue"),
            new Flag("min-pop-wait", "0", "queue option minPopWaitTime in ms (a pop may hold an under-full batch); 0 = not sent"),
            new Flag("preset", "", "named shape: smoke | push-only | soak | latency | drain | jobs"),
            new Flag("json", "", "write the report as JSON to this file"),
            new Flag("verify", "true", "track every message: lost / duplicated / out-of-order"),
            new Flag("broker-pid", "", "broker pid for CPU/RSS accounting (default: the process listening on the URL's port)"),
            new Flag("pg-pids", "", "comma list of PostgreSQL pids (each plus its children) for CPU accounting"
                    + " (default: the postmaster listening on --pg-url's port and its children)"),
            new Flag("mode", "queen", "queen | baseline | both | pgmq (pgmq's SQL API in --pg-url's database)"),
            new Flag("pg-url", "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres",
                    "JDBC URL for baseline mode and bytes-stored (PGPASSWORD is used when the URL has no password)"),
            new Flag("pop-wait-ms", "2000", "long-poll timeout sent as timeout= with wait=true"),
            new Flag("wildcard", "false", "consumers pop /api/v1/pop/queue/:q instead of assigned partitions"),
            new Flag("phased", "false", "push everything first, then start the consumers and drain"),
            new Flag("drain-timeout", "60", "seconds the consumers keep draining after the producers stop"),
            new Flag("time-limit", "600", "hard cap in seconds on the push phase of a --messages run"),
            new Flag("cleanup", "true", "delete the bench queues / drop the bench_baseline schema at the end"),
            new Flag("pad", "repeat", "payload padding: repeat (x...x, compresses to almost nothing) | random"
                    + " (random letters and digits, ~6 bits of entropy per byte: a pessimistic case for compression)"),
            new Flag("baseline-insert", "row", "baseline push: row (one INSERT statement per message, JDBC-batched,"
                    + " one transaction per push batch) | multirow (one multi-row INSERT per push batch)"),
            new Flag("token", "", "JWT sent as Authorization: Bearer on every broker request (a broker with"
                    + " JWT_ENABLED=true); empty = none; default: the QUEEN_BENCH_TOKEN environment variable"),
            new Flag("work-ms", "0", "milliseconds of work per delivered message: a consumer sleeps work-ms x the pop's"
                    + " message count after each pop, before it acks (what a job costs its worker); 0 = none"),
            new Flag("arrival-batches", "false", "with --rate: messages arrive one by one at the rate and each push"
                    + " carries those that arrived since the producer's previous push (at most --push-batch), instead"
                    + " of batches of --push-batch on a fixed schedule"),
            new Flag("pickup-latency", "false", "also measure pickup latency: push answered -> the message's first"
                    + " pop (8 bytes of bookkeeping per pushed message in this tool)"),
            new Flag("help", "false", "print this help"));

    /** The flag's value, else QUEEN_BENCH_TOKEN (so a token need not appear in a recorded command line). */
    private static String token(String flag) {
        String t = flag.isBlank() ? System.getenv("QUEEN_BENCH_TOKEN") : flag;
        return t == null || t.isBlank() ? null : t.strip();
    }

    private static final Set<String> BOOLEANS = Set.of("retention", "verify", "wildcard", "phased", "cleanup", "help",
            "arrival-batches", "pickup-latency");

    private Cli() {}

    public static Config parse(String... args) throws UsageException {
        Map<String, Flag> known = new HashMap<>();
        for (Flag f : FLAGS) {
            known.put(f.name(), f);
        }
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h")) {
                a = "--help";
            }
            if (!a.startsWith("--") || a.length() == 2) {
                throw new UsageException("unexpected argument: " + a);
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (!known.containsKey(name)) {
                throw new UsageException("unknown flag: --" + name);
            }
            if (value == null) {
                boolean nextIsValue = i + 1 < args.length && !args[i + 1].startsWith("--");
                if (BOOLEANS.contains(name)) {
                    if (nextIsValue && isBoolWord(args[i + 1])) {
                        value = args[++i];
                    } else {
                        value = "true";
                    }
                } else if (nextIsValue) {
                    value = args[++i];
                } else {
                    throw new UsageException("flag --" + name + " needs a value");
                }
            }
            given.put(name, value);
        }

        Map<String, String> v = new HashMap<>();
        for (Flag f : FLAGS) {
            v.put(f.name(), f.def());
        }
        String presetName = given.getOrDefault("preset", "");
        if (!presetName.isEmpty()) {
            Preset p = Preset.byId(presetName)
                    .orElseThrow(() -> new UsageException("unknown preset: " + presetName + " (known: "
                            + String.join(", ", java.util.Arrays.stream(Preset.values()).map(Preset::id).toList()) + ")"));
            v.putAll(p.flags());
        }
        v.putAll(given);
        return build(v);
    }

    private static boolean isBoolWord(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "true", "false", "1", "0", "yes", "no", "on", "off" -> true;
            default -> false;
        };
    }

    private static Config build(Map<String, String> v) throws UsageException {
        String url = v.get("url");
        try {
            URI u = URI.create(url);
            if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                    || u.getHost() == null) {
                throw new UsageException("--url must be an http(s) URL with a host: " + url);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException("--url is not a valid URL: " + url);
        }
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        String queue = v.get("queue");
        if (queue.isEmpty() || queue.contains("/")) {
            throw new UsageException("--queue must be non-empty and must not contain '/'");
        }
        Config.AckMode ack = switch (v.get("ack").toLowerCase(Locale.ROOT)) {
            case "explicit" -> Config.AckMode.EXPLICIT;
            case "auto" -> Config.AckMode.AUTO;
            default -> throw new UsageException("--ack must be explicit or auto");
        };
        Config.Mode mode = switch (v.get("mode").toLowerCase(Locale.ROOT)) {
            case "queen" -> Config.Mode.QUEEN;
            case "baseline" -> Config.Mode.BASELINE;
            case "both" -> Config.Mode.BOTH;
            case "pgmq" -> Config.Mode.PGMQ;
            default -> throw new UsageException("--mode must be queen, baseline, both or pgmq");
        };
        String pgUrl = v.get("pg-url");
        if (!pgUrl.startsWith("jdbc:postgresql:")) {
            throw new UsageException("--pg-url must be a jdbc:postgresql: URL");
        }
        String brokerPidText = v.get("broker-pid");
        Long brokerPid = brokerPidText.isEmpty() ? null : positiveLong("broker-pid", brokerPidText);
        List<Long> pgPids = new ArrayList<>();
        for (String s : v.get("pg-pids").split(",")) {
            if (!s.isBlank()) {
                pgPids.add(positiveLong("pg-pids", s.trim()));
            }
        }
        Config c = new Config(
                url,
                queue,
                intIn(v, "queues", 1, 10_000),
                intIn(v, "partitions", 1, 100_000),
                intIn(v, "payload-bytes", 0, 10_000_000),
                intIn(v, "push-batch", 1, 100_000),
                intIn(v, "producers", 1, 10_000),
                intIn(v, "pop-batch", 1, 100_000),
                intIn(v, "consumers", 0, 10_000),
                intIn(v, "groups", 0, 1_000),
                ack,
                doubleMin(v, "rate", 0),
                intIn(v, "duration", 1, 7 * 24 * 3600),
                longMin(v, "messages", 0),
                intIn(v, "warmup", 0, 24 * 3600),
                intIn(v, "dedup-window", 0, Integer.MAX_VALUE),
                bool(v, "retention"),
                intIn(v, "min-pop-wait", 0, 60_000),
                v.get("preset"),
                v.get("json"),
                bool(v, "verify"),
                brokerPid,
                List.copyOf(pgPids),
                mode,
                pgUrl,
                intIn(v, "pop-wait-ms", 0, 600_000),
                bool(v, "wildcard"),
                bool(v, "phased"),
                intIn(v, "drain-timeout", 0, 24 * 3600),
                intIn(v, "time-limit", 1, 7 * 24 * 3600),
                bool(v, "cleanup"),
                bool(v, "help"),
                switch (v.get("pad")) {
                    case "repeat" -> false;
                    case "random" -> true;
                    default -> throw new UsageException("--pad must be repeat or random");
                },
                switch (v.get("baseline-insert")) {
                    case "row" -> false;
                    case "multirow" -> true;
                    default -> throw new UsageException("--baseline-insert must be row or multirow");
                },
                token(v.get("token")),
                doubleMin(v, "work-ms", 0),
                bool(v, "arrival-batches"),
                bool(v, "pickup-latency"));
        if (c.mode() != Config.Mode.QUEEN && c.groups() > 0) {
            throw new UsageException("--groups > 0 is not supported by the baseline or pgmq (a row-per-message"
                    + " queue deletes on ack and has no fan-out); use --mode queen");
        }
        return c;
    }

    private static int intIn(Map<String, String> v, String name, int min, int max) throws UsageException {
        long x = longMin(v, name, min);
        if (x > max) {
            throw new UsageException("--" + name + " must be at most " + max);
        }
        return (int) x;
    }

    private static long longMin(Map<String, String> v, String name, long min) throws UsageException {
        String s = v.get(name).replace("_", "");
        long x;
        try {
            x = Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " needs an integer, got: " + v.get(name));
        }
        if (x < min) {
            throw new UsageException("--" + name + " must be at least " + min);
        }
        return x;
    }

    private static double doubleMin(Map<String, String> v, String name, double min) throws UsageException {
        double x;
        try {
            x = Double.parseDouble(v.get(name));
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " needs a number, got: " + v.get(name));
        }
        if (!(x >= min) || Double.isInfinite(x)) {
            throw new UsageException("--" + name + " must be a finite number >= " + min);
        }
        return x;
    }

    private static long positiveLong(String name, String s) throws UsageException {
        try {
            long x = Long.parseLong(s);
            if (x <= 0) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " needs positive integer pids, got: " + s);
        }
    }

    private static boolean bool(Map<String, String> v, String name) throws UsageException {
        return switch (v.get(name).toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new UsageException("--" + name + " needs true or false, got: " + v.get(name));
        };
    }

    public static String help() {
        var sb = new StringBuilder();
        sb.append("usage: java -jar queen-bench.jar [--flag value]...\n\n");
        sb.append("Load generator and delivery verifier for the Queen broker (and a row-per-message PostgreSQL baseline).\n\n");
        sb.append("flags (default in brackets):\n");
        for (Flag f : FLAGS) {
            String d = f.def().isEmpty() ? "unset" : f.def();
            sb.append(String.format("  --%-15s %s [%s]%n", f.name(), f.help(), d));
        }
        sb.append("\npresets (their values apply before the explicit flags):\n");
        for (Preset p : Preset.values()) {
            sb.append(String.format("  %-10s %s%n", p.id(), p.description()));
            var parts = new ArrayList<String>();
            p.flags().forEach((k, val) -> parts.add("--" + k + " " + val));
            sb.append("             ").append(String.join(" ", parts)).append('\n');
        }
        sb.append("\nexit codes: 0 run completed and verified; 1 lost/duplicated/out-of-order messages, errors,"
                + " or setup failure; 2 usage error\n");
        return sb.toString();
    }
}
