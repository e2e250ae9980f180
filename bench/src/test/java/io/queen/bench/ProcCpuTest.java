package io.queen.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcCpuTest {

    // A real line shape from /proc/<pid>/stat (52 fields), with a comm holding spaces and parentheses.
    static final String STAT = "2031 (postgres: 15/main: autovacuum (x) ) S 2026 2026 2026 0 -1 4210752 1253 0 0 0"
            + " 117 243 0 0 20 0 1 0 3052 226127872 1794 18446744073709551615 1 1 0 0 0 0 4194304 20975616"
            + " 536883719 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

    @Test
    void parsesStatLine() {
        ProcCpu.Stat s = ProcCpu.parseStat(STAT);
        assertEquals(2031, s.pid());
        assertEquals("postgres: 15/main: autovacuum (x) ", s.comm());
        assertEquals('S', s.state());
        assertEquals(2026, s.ppid());
        assertEquals(117, s.utime());
        assertEquals(243, s.stime());
        assertEquals(360, s.cpuTicks());
        assertEquals(3052, s.startTime());
        assertEquals("2031:3052", s.key());
        assertThrows(IllegalArgumentException.class, () -> ProcCpu.parseStat("garbage"));
    }

    @Test
    void readsOwnProcess() {
        long me = ProcessHandle.current().pid();
        ProcCpu.Stat s = ProcCpu.readStat(me).orElseThrow();
        assertEquals(me, s.pid());
        assertTrue(ProcCpu.vmRssKb(me) > 0);
        assertTrue(ProcCpu.clockTicksPerSecond() > 0);
    }

    @Test
    void parsesVmRss() {
        String status = "Name:\tpostgres\nVmPeak:\t  300000 kB\nVmRSS:\t   12345 kB\nThreads:\t1\n";
        assertEquals(12345, ProcCpu.parseVmRssKb(status));
        assertEquals(-1, ProcCpu.parseVmRssKb("Name:\tx\n"));
    }

    @Test
    void findsListeningInodes() {
        List<String> tcp = List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:1F38 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 55501 1 0000000000000000 100 0 0 10 0",
                "   1: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   114        0 22711 1 0000000000000000 100 0 0 10 0",
                "   2: 0100007F:1F38 0100007F:D2C4 01 00000000:00000000 00:00000000 00000000     0        0 55555 1 0000000000000000 20 4 30 10 -1");
        assertEquals(Set.of(55501L), ProcCpu.listeningInodes(tcp, 0x1F38));
        assertEquals(Set.of(22711L), ProcCpu.listeningInodes(tcp, 5432));
        assertEquals(Set.of(), ProcCpu.listeningInodes(tcp, 6632));
    }

    @Test
    void postgresPidsAreRootsAndChildren() {
        var all = List.of(
                new ProcCpu.Stat(100, "postgres", 'S', 1, 0, 0, 1, 0),
                new ProcCpu.Stat(101, "postgres", 'S', 100, 0, 0, 2, 0),
                new ProcCpu.Stat(200, "postgres", 'S', 1, 0, 0, 3, 0),
                new ProcCpu.Stat(201, "postgres", 'S', 200, 0, 0, 4, 0),
                new ProcCpu.Stat(300, "java", 'S', 1, 0, 0, 5, 0));
        assertEquals(Set.of(100L, 101L), ProcCpu.postgresPids(List.of(100L), all));
        assertEquals(Set.of(100L, 101L, 200L, 201L), ProcCpu.postgresPids(List.of(), all));
    }

    @Test
    void deltaCountsNewProcessesAndDropsExitedOnes() {
        var start = new ProcCpu.Sample(Map.of("1:10", 100L, "2:20", 50L), Set.of(1L, 2L));
        // pid 2 exited; pid 3 appeared; pid 1 was reused by another process (new start time) -> counted whole
        var end = new ProcCpu.Sample(Map.of("1:10", 160L, "3:30", 7L, "1:99", 4L), Set.of(1L, 3L));
        assertEquals(60 + 7 + 4, ProcCpu.deltaTicks(start, end));
    }

    @Test
    void reapedChildrenTimeCountsProcessesThatExited() {
        // fields 16 and 17 of STAT (cutime, cstime) are 0 and 0; a postmaster line with 40 + 2 reaped ticks
        assertEquals(0, ProcCpu.parseStat(STAT).reapedTicks());
        String pm = "2026 (postgres) S 1 2026 2026 0 -1 4210752 1253 0 0 0 117 243 40 2 20 0 1 0 3052 1 1";
        assertEquals(42, ProcCpu.parseStat(pm).reapedTicks());
        // pid 2 (50 ticks seen at the start) exited after 30 more; pid 4 was born and died in between (12):
        // the postmaster reaped 80 + 12 ticks, of which 50 the start sample had already seen
        var start = new ProcCpu.Sample(Map.of("1:10", 100L, "2:20", 50L), Set.of(1L, 2L), 1000);
        var end = new ProcCpu.Sample(Map.of("1:10", 160L), Set.of(1L), 1000 + 80 + 12);
        assertEquals(30 + 12, ProcCpu.exitedTicks(start, end));
        assertEquals(60, ProcCpu.deltaTicks(start, end));
        // nothing reaped: nothing added, never negative
        assertEquals(0, ProcCpu.exitedTicks(start, new ProcCpu.Sample(Map.of("1:10", 160L), Set.of(1L), 1000)));
    }

    @Test
    void jdbcHostPort() {
        assertEquals(new Jdbc.HostPort("127.0.0.1", 5432), Jdbc.hostPort("jdbc:postgresql://127.0.0.1:5432/postgres?user=x"));
        assertEquals(new Jdbc.HostPort("localhost", 5432), Jdbc.hostPort("jdbc:postgresql://localhost/postgres"));
        assertEquals(new Jdbc.HostPort("127.0.0.1", 5433), Jdbc.hostPort("jdbc:postgresql://127.0.0.1:5433?user=x"));
        assertEquals(null, Jdbc.hostPort("jdbc:postgresql:postgres"));
    }

    @Test
    void databaseOfProcessTitle() {
        assertEquals("bench1", ProcCpu.databaseOfTitle("postgres: 15/main: postgres bench1 127.0.0.1(49886) idle"));
        assertEquals("scratch", ProcCpu.databaseOfTitle("postgres: app scratch [local] SELECT"));
        assertEquals("bench1", ProcCpu.databaseOfTitle("postgres: 15/main: autovacuum worker bench1"));
        assertEquals(null, ProcCpu.databaseOfTitle("postgres: 15/main: walwriter"));
        assertEquals("bench1", Jdbc.database("jdbc:postgresql://127.0.0.1:5432/bench1?user=postgres&password=x"));
        assertEquals(null, Jdbc.database("jdbc:postgresql://127.0.0.1:5432/"));
        assertEquals(null, ProcCpu.databaseOfTitle("postgres: 15/main: checkpointer"));
        assertEquals(null, ProcCpu.databaseOfTitle("/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main"));
    }
}
