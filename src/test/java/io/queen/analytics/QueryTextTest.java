package io.queen.analytics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QueryTextTest {
    static String strip(String sql) {
        return QueryText.withoutLiterals(sql, 300);
    }

    @Test
    void literalsBecomePlaceholdersAndTheStatementStays() {
        assertEquals("ALTER ROLE app PASSWORD ?", strip("ALTER ROLE app PASSWORD 'hunter2'"));
        assertEquals("SELECT * FROM t WHERE a = ? AND b IN (?, ?, ?) AND c = $1",
                strip("SELECT * FROM t WHERE a = 'it''s' AND b IN (1, 2.5e-3, .5) AND c = $1"));
        assertEquals("SELECT ?, ?, ?, ?, ?", strip("SELECT E'a\\'b', B'0101', X'ff', N'nat', U&'d\\0061t'"));
        assertEquals("SELECT ?, ?, f(?)", strip("SELECT $$SECRET$$, $x$ a $y$ SECRET $x$, f(0x1F)"));
        assertEquals("SELECT t1.col2, \"Weird  'name'\" FROM s.t1",
                strip("SELECT  t1.col2,\n\t\"Weird  'name'\" FROM s.t1"));
        assertEquals("SELECT a$b, ?::date", strip("SELECT a$b, '2026-12-02'::date"));
        assertEquals("SELECT ? , ? FROM t", strip("SELECT 1 /* SECRET /* nested */ SECRET */ , 2 -- SECRET\nFROM t"));
    }

    @Test
    void whatCannotBeReadUnambiguouslyIsCut() {
        // standard_conforming_strings = off would end this literal at \' and read SECRET as code
        assertEquals("SELECT ?" + QueryText.CUT, strip("SELECT 'a\\', 'SECRET'"));
        // the statistics view truncated the statement inside a literal, a comment or an identifier
        assertEquals("INSERT INTO t VALUES (?" + QueryText.CUT, strip("INSERT INTO t VALUES ('SECRET"));
        assertEquals("SELECT ?" + QueryText.CUT, strip("SELECT $q$SECRET"));
        assertEquals("SELECT" + QueryText.CUT, strip("SELECT /* SECRET"));
        assertEquals("SELECT" + QueryText.CUT, strip("SELECT \"SECRET"));
        assertEquals("SELECT" + QueryText.CUT, QueryText.withoutLiterals("SELECT a, b, c FROM t", 6));
    }

    /**
     * Statements built from code and from literals and comments that hold SECRET (with quotes, backslashes,
     * nested comments, dollar tags inside), then cut anywhere as the statistics view cuts a long statement: no part
     * of a literal or a comment ever shows.
     */
    @Test
    void noCharacterOfALiteralEverShows() {
        Random rnd = new Random(42);
        List<String> code = List.of("SELECT", " ", "\n", "a", "t.b", ",", "(", ")", "$1", "::text", "=", "\"Q\"", "e");
        List<String> content = List.of("SECRET", "''", " ", "x", "$", "*", "/", "-", "\\");
        for (int run = 0; run < 50_000; run++) {
            StringBuilder sql = new StringBuilder();
            int n = 1 + rnd.nextInt(10);
            for (int i = 0; i < n; i++) {
                String inner = inner(rnd, content);
                switch (rnd.nextInt(9)) {
                    case 0 -> sql.append(" '").append(inner).append("'");
                    case 1 -> sql.append(" E'").append(inner.replace("\\", "\\\\")).append("\\'SECRET'");
                    case 2 -> sql.append(" $$").append(inner.replace("$", "")).append("$$");
                    case 3 -> sql.append(" $tag$").append(inner).append("$tag$");
                    case 4 -> sql.append(" -- ").append(inner.replace("\n", "")).append("\n");
                    case 5 -> sql.append(" /* ").append(inner.replace("*", "").replace("/", ""))
                            .append(" /* SECRET */ */");
                    case 6 -> sql.append(" 4711");
                    default -> sql.append(code.get(rnd.nextInt(code.size())));
                }
            }
            String s = rnd.nextBoolean() ? sql.toString() : sql.substring(0, rnd.nextInt(sql.length() + 1));
            String out = strip(s);
            assertFalse(out.contains("SEC") || out.contains("47") || out.contains("11"), s + " -> " + out);
        }
    }

    static String inner(Random rnd, List<String> content) {
        StringBuilder b = new StringBuilder("SECRET");
        for (int i = rnd.nextInt(5); i > 0; i--) {
            b.append(content.get(rnd.nextInt(content.size())));
        }
        return b.toString();
    }
}
