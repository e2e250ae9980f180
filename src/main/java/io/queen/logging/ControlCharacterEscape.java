package io.queen.logging;

import io.quarkus.logging.LoggingFilter;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.jboss.logmanager.ExtLogRecord;

/**
 * One event, one line: every log handler ({@code quarkus.log.*.filter}) passes its records through this filter,
 * which escapes the control characters of the formatted message and of the messages of a logged exception chain
 * ({@code \r}, {@code \n}, {@code \t} by name, any other C0/C1 control, DEL and U+2028/U+2029 as {@code \}{@code uXXXX}).
 * Log lines quote client input (namespaces, tasks, consumer groups, error texts, database messages that echo
 * them): a CR/LF in such a value would otherwise let a client write a whole forged line. It is one rule for every
 * line, so no log call can forget it. Never drops a record. Stateless, thread-safe; a record without control
 * characters is formatted once (as the handler would) and not copied.
 */
@LoggingFilter(name = ControlCharacterEscape.NAME)
public final class ControlCharacterEscape implements Filter {
    /** The name the handlers' {@code filter} setting refers to. */
    public static final String NAME = "queen-escape-control-characters";
    private static final SimpleFormatter JUL = new SimpleFormatter();

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record instanceof ExtLogRecord ext) {
            String formatted = ext.getFormattedMessage();
            // formatted here once: the handler's formatter reuses it as is
            ext.setMessage(escape(formatted), ExtLogRecord.FormatStyle.NO_FORMAT);
            ext.setParameters(null);
        } else {
            String formatted = JUL.formatMessage(record);
            String escaped = escape(formatted);
            if (escaped != formatted || record.getParameters() != null) {
                record.setMessage(escaped);
                record.setParameters(null);
            }
        }
        Throwable t = record.getThrown();
        if (t != null && chainHasControl(t)) {
            record.setThrown(EscapedThrowable.of(t, Collections.newSetFromMap(new IdentityHashMap<>())));
        }
        return true;
    }

    /** {@code s} with its control characters escaped; the same instance when it has none (or is null). */
    public static String escape(String s) {
        if (s == null) {
            return null;
        }
        int n = s.length();
        int i = 0;
        while (i < n && !isControl(s.charAt(i))) {
            i++;
        }
        if (i == n) {
            return s;
        }
        StringBuilder b = new StringBuilder(n + 16).append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (!isControl(c)) {
                b.append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c == '\t') {
                b.append("\\t");
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    static boolean isControl(char c) {
        return c < 0x20 || c >= 0x7F && c <= 0x9F || c == '\u2028' || c == '\u2029';
    }

    private static boolean chainHasControl(Throwable t) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && escape(m) != m) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (chainHasControl(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Stands in for a logged exception whose chain has a message with control characters: prints as the original
     * ({@code class: message}, its stack trace, causes and suppressed) with the messages escaped.
     */
    static final class EscapedThrowable extends Throwable {
        private final String text;

        private EscapedThrowable(Throwable original) {
            super(escape(original.getMessage()));
            String m = original.getLocalizedMessage();
            this.text = original.getClass().getName() + (m == null ? "" : ": " + escape(m));
            setStackTrace(original.getStackTrace());
        }

        static EscapedThrowable of(Throwable t, Set<Throwable> seen) {
            seen.add(t);
            EscapedThrowable e = new EscapedThrowable(t);
            Throwable cause = t.getCause();
            if (cause != null && !seen.contains(cause)) {
                e.initCause(of(cause, seen));
            }
            for (Throwable s : t.getSuppressed()) {
                if (!seen.contains(s)) {
                    e.addSuppressed(of(s, seen));
                }
            }
            return e;
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
