package io.queen.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Linux /proc accounting: CPU time from {@code /proc/<pid>/stat} (utime + stime, which already sums all
 * threads), resident memory from {@code /proc/<pid>/status}, and discovery of the process listening on a
 * TCP port ({@code /proc/net/tcp[6]} socket inodes matched against {@code /proc/<pid>/fd} links).
 *
 * <p>A process that exits between two samples takes its own counters with it; the kernel adds its whole life's
 * CPU time to its parent's cutime + cstime once the parent reaps it. The PostgreSQL postmaster reaps its
 * children (autovacuum workers, short-lived backends) at once, so {@link #exitedTicks} recovers their time from
 * the postmaster's counters. That part cannot be told apart by database: on a shared cluster it may include
 * other databases' exited processes (an over-count, never an under-count).
 */
public final class ProcCpu {

    /**
     * The fields of /proc/pid/stat this tool uses. Times are in clock ticks; {@code reapedTicks} is cutime +
     * cstime (fields 16 and 17), the CPU time of the children this process has reaped.
     */
    public record Stat(long pid, String comm, char state, long ppid, long utime, long stime, long startTime,
            long reapedTicks) {
        public long cpuTicks() {
            return utime + stime;
        }

        /** Identifies a process across pid reuse. */
        public String key() {
            return pid + ":" + startTime;
        }
    }

    /**
     * CPU ticks per process key at one instant, and the reaped-children ticks (cutime + cstime) of the roots
     * (the postmaster), which grow when a child exits.
     */
    public record Sample(Map<String, Long> ticks, Set<Long> pids, long reapedTicks) {
        static final Sample EMPTY = new Sample(Map.of(), Set.of());

        public Sample(Map<String, Long> ticks, Set<Long> pids) {
            this(ticks, pids, 0);
        }
    }

    private static final Path PROC = Path.of("/proc");
    private static volatile long clockTicks = -1;

    private ProcCpu() {}

    /** Parses one /proc/pid/stat line. The comm field may contain spaces and parentheses. */
    public static Stat parseStat(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc/pid/stat line: " + line);
        }
        long pid = Long.parseLong(line.substring(0, open).trim());
        String comm = line.substring(open + 1, close);
        String[] f = line.substring(close + 1).trim().split("\\s+");
        // f[0] = field 3 (state); field n is f[n - 3].
        if (f.length < 20) {
            throw new IllegalArgumentException("short /proc/pid/stat line: " + line);
        }
        return new Stat(pid, comm, f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[11]),
                Long.parseLong(f[12]), Long.parseLong(f[19]), Long.parseLong(f[13]) + Long.parseLong(f[14]));
    }

    public static Optional<Stat> readStat(long pid) {
        try {
            return Optional.of(parseStat(Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** VmRSS in kB from the text of /proc/pid/status, or -1. */
    public static long parseVmRssKb(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                String[] parts = line.substring(6).trim().split("\\s+");
                return Long.parseLong(parts[0]);
            }
        }
        return -1;
    }

    /** VmRSS of a process in kB, or {@code null} when unreadable. */
    public static Long vmRssKb(long pid) {
        try {
            long kb = parseVmRssKb(Files.readString(PROC.resolve(Long.toString(pid)).resolve("status")));
            return kb < 0 ? null : kb;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** USER_HZ (clock ticks per second) from {@code getconf CLK_TCK}; 100 when that fails. */
    public static long clockTicksPerSecond() {
        long t = clockTicks;
        if (t > 0) {
            return t;
        }
        t = 100;
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
                t = Long.parseLong(out);
            }
        } catch (IOException | InterruptedException | NumberFormatException e) {
            // keep the Linux default
        }
        clockTicks = t;
        return t;
    }

    /** Socket inodes of sockets in LISTEN state on {@code port}, from /proc/net/tcp-format lines. */
    public static Set<Long> listeningInodes(Collection<String> tcpLines, int port) {
        Set<Long> inodes = new HashSet<>();
        for (String line : tcpLines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10 || !f[0].endsWith(":")) {
                continue; // header
            }
            String local = f[1];
            int colon = local.lastIndexOf(':');
            if (colon < 0) {
                continue;
            }
            try {
                int p = Integer.parseInt(local.substring(colon + 1), 16);
                if (p == port && f[3].equals("0A")) {
                    inodes.add(Long.parseLong(f[9]));
                }
            } catch (NumberFormatException e) {
                // skip malformed line
            }
        }
        inodes.remove(0L);
        return inodes;
    }

    /** All numeric entries of /proc. */
    public static List<Long> allPids() {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(PROC)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (!n.isEmpty() && n.chars().allMatch(Character::isDigit)) {
                    pids.add(Long.parseLong(n));
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to account
        }
        return pids;
    }

    /** The lowest pid holding a socket that listens on {@code port}, or {@code null}. */
    public static Long findListeningPid(int port) {
        List<String> lines = new ArrayList<>();
        for (String f : List.of("net/tcp", "net/tcp6")) {
            try {
                lines.addAll(Files.readAllLines(PROC.resolve(f)));
            } catch (IOException e) {
                // absent (e.g. no IPv6)
            }
        }
        Set<String> wanted = new HashSet<>();
        for (long inode : listeningInodes(lines, port)) {
            wanted.add("socket:[" + inode + "]");
        }
        if (wanted.isEmpty()) {
            return null;
        }
        TreeSet<Long> owners = new TreeSet<>();
        for (long pid : allPids()) {
            Path fd = PROC.resolve(Long.toString(pid)).resolve("fd");
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(fd)) {
                for (Path link : ds) {
                    try {
                        if (wanted.contains(Files.readSymbolicLink(link).toString())) {
                            owners.add(pid);
                            break;
                        }
                    } catch (IOException | UnsupportedOperationException e) {
                        // fd closed meanwhile
                    }
                }
            } catch (IOException e) {
                // process gone or not readable
            }
        }
        return owners.isEmpty() ? null : owners.first();
    }

    /** Current stats of all processes. */
    public static List<Stat> allStats() {
        List<Stat> out = new ArrayList<>();
        for (long pid : allPids()) {
            readStat(pid).ifPresent(out::add);
        }
        return out;
    }

    /**
     * The PostgreSQL processes to account: each root and its direct children (a postmaster's backends and
     * auxiliary processes are its children). With no roots, every process whose comm is {@code postgres}.
     */
    public static Set<Long> postgresPids(Collection<Long> roots, List<Stat> all) {
        Set<Long> out = new LinkedHashSet<>();
        if (roots.isEmpty()) {
            for (Stat s : all) {
                if (s.comm().equals("postgres")) {
                    out.add(s.pid());
                }
            }
            return out;
        }
        Set<Long> rootSet = new HashSet<>(roots);
        for (Stat s : all) {
            if (rootSet.contains(s.pid()) || rootSet.contains(s.ppid())) {
                out.add(s.pid());
            }
        }
        return out;
    }

    /**
     * Keeps the processes that work for {@code database}: backends whose process title names that database
     * ({@code postgres: [cluster:] user db host(port) state}, {@code autovacuum worker db}) and the cluster's
     * shared auxiliary processes (WAL writer, checkpointer, background writer, launchers), whose title names no
     * database. A backend of another database is dropped, so other users of a shared PostgreSQL do not count.
     * With a null database, or a pid whose title cannot be read, the process is kept.
     */
    public static Set<Long> onlyDatabase(Set<Long> pids, String database) {
        if (database == null) {
            return pids;
        }
        Set<Long> out = new LinkedHashSet<>();
        for (long pid : pids) {
            String title;
            try {
                title = new String(Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("cmdline")))
                        .replace('\0', ' ').trim();
            } catch (IOException | RuntimeException e) {
                out.add(pid);
                continue;
            }
            String db = databaseOfTitle(title);
            if (db == null || db.equals(database)) {
                out.add(pid);
            }
        }
        return out;
    }

    /**
     * The database a PostgreSQL process title names, or null for a process that serves no single database
     * (postmaster, auxiliary processes). Client backend: the word before {@code host(port)} / {@code [local]};
     * autovacuum worker: its last word.
     */
    static String databaseOfTitle(String title) {
        if (!title.startsWith("postgres:")) {
            return null;
        }
        String[] w = title.trim().split("\\s+");
        for (int i = 1; i < w.length; i++) {
            if (i >= 2 && (w[i].matches(".*\\(\\d+\\)") || w[i].equals("[local]"))) {
                return w[i - 1];
            }
        }
        String t = title;
        int k = t.indexOf("autovacuum worker");
        if (k >= 0) {
            String rest = t.substring(k + "autovacuum worker".length()).trim();
            return rest.isEmpty() ? null : rest.split("\\s+")[0];
        }
        return null;
    }

    /**
     * CPU ticks of the threads of {@code pid} whose name matches {@code name} (from /proc/pid/task/tid/stat; threads
     * that exited are not counted), or 0 when unreadable. A JVM's JIT compiler threads are named "C1 CompilerThre..."
     * and "C2 CompilerThre..." (the kernel keeps 15 characters).
     */
    public static long threadTicks(long pid, java.util.regex.Pattern name) {
        long sum = 0;
        try (var tasks = Files.list(PROC.resolve(Long.toString(pid)).resolve("task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    Stat s = parseStat(Files.readString(t.resolve("stat")));
                    if (name.matcher(s.comm()).find()) {
                        sum += s.cpuTicks();
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread exited while listed
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    /** Samples the CPU ticks of the given pids (pids that vanished are skipped). */
    public static Sample sample(Collection<Long> pids) {
        return sample(pids, List.of());
    }

    /** As {@link #sample(Collection)}, plus the reaped-children ticks of {@code roots}. */
    public static Sample sample(Collection<Long> pids, Collection<Long> roots) {
        long reaped = 0;
        for (long root : roots) {
            reaped += readStat(root).map(Stat::reapedTicks).orElse(0L);
        }
        Map<String, Long> ticks = new HashMap<>();
        Set<Long> seen = new LinkedHashSet<>();
        for (long pid : pids) {
            Optional<Stat> s = readStat(pid);
            if (s.isPresent()) {
                ticks.put(s.get().key(), s.get().cpuTicks());
                seen.add(pid);
            }
        }
        return new Sample(ticks, seen, reaped);
    }

    /**
     * CPU ticks spent between two samples: every process of {@code end} minus its ticks in {@code start}
     * (0 when it appeared in between, so its whole life is counted). Processes present only in
     * {@code start} exited and are not counted.
     */
    public static long deltaTicks(Sample start, Sample end) {
        long sum = 0;
        for (var e : end.ticks().entrySet()) {
            long before = start.ticks().getOrDefault(e.getKey(), 0L);
            sum += Math.max(0, e.getValue() - before);
        }
        return sum;
    }

    /**
     * CPU ticks of processes that exited between two samples, from the roots' reaped-children counters: the
     * growth of those counters (the whole lives of the children reaped in between) minus what the start sample
     * had already seen of the processes missing from the end sample. Processes that were born and died in
     * between count whole.
     */
    public static long exitedTicks(Sample start, Sample end) {
        long seenBefore = 0;
        for (var e : start.ticks().entrySet()) {
            if (!end.ticks().containsKey(e.getKey())) {
                seenBefore += e.getValue();
            }
        }
        return Math.max(0, end.reapedTicks() - start.reapedTicks() - seenBefore);
    }

    public static double ticksToSeconds(long ticks) {
        return ticks / (double) clockTicksPerSecond();
    }
}
