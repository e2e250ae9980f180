package io.queen.analytics;

/**
 * SQL text with its literals removed, for showing what other sessions run without showing their data: every
 * string, bit-string, dollar-quoted and numeric literal becomes {@code ?}, comments are dropped; keywords,
 * identifiers, operators and {@code $n} parameters stay, a run of whitespace becomes one space. Read with
 * PostgreSQL's lexical rules.
 *
 * <p>Invariant: no character of a literal or comment reaches the output. Where the text cannot be read
 * unambiguously from there on, the rest is cut ({@code ?} and {@link #CUT}): an unterminated literal, quoted
 * identifier or comment (the statistics view truncates long statements), and a plain {@code '...'} literal holding
 * a backslash, which a session with {@code standard_conforming_strings = off} reads as an escape, so that where
 * it ends cannot be known from the text alone. Stateless; thread-safe.
 */
public final class QueryText {
    /** Marks text left out from the first point that could not be read unambiguously, or beyond the length cap. */
    public static final String CUT = " …";

    private QueryText() {
    }

    /** {@code sql} without literals and comments, at most {@code maxChars} characters (plus {@link #CUT}). */
    public static String withoutLiterals(String sql, int maxChars) {
        if (sql == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(Math.min(sql.length(), maxChars + 16));
        int n = sql.length();
        int i = 0;
        while (i < n && out.length() <= maxChars) {
            char c = sql.charAt(i);
            char next = i + 1 < n ? sql.charAt(i + 1) : 0;
            if (c == '-' && next == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol;
            } else if (c == '/' && next == '*') {
                int end = blockCommentEnd(sql, i);
                if (end < 0) {
                    return cut(out, maxChars);
                }
                space(out);
                i = end;
            } else if (Character.isWhitespace(c)) {
                space(out);
                i++;
            } else if (c == '\'') {
                char kind = dropPrefix(out);
                int end = quotedEnd(sql, i, '\'', kind == 'E' ? Backslash.ESCAPE
                        : kind == 'U' ? Backslash.TEXT : Backslash.AMBIGUOUS);
                out.append('?');
                if (end < 0) {
                    return cut(out, maxChars);
                }
                i = end;
            } else if (c == '"') {
                int end = quotedEnd(sql, i, '"', Backslash.TEXT);
                if (end < 0) {
                    return cut(out, maxChars);
                }
                out.append(sql, i, end);
                i = end;
            } else if (c == '$' && Character.isDigit(next)) {
                int end = i + 1;
                while (end < n && Character.isDigit(sql.charAt(end))) {
                    end++;
                }
                out.append(sql, i, end);
                i = end;
            } else if (c == '$') {
                int tagEnd = dollarTagEnd(sql, i);
                if (tagEnd < 0) {
                    out.append(c);
                    i++;
                    continue;
                }
                int close = sql.indexOf(sql.substring(i, tagEnd), tagEnd);
                out.append('?');
                if (close < 0) {
                    return cut(out, maxChars);
                }
                i = close + (tagEnd - i);
            } else if (Character.isDigit(c) || c == '.' && Character.isDigit(next)) {
                i = numberEnd(sql, i);
                out.append('?');
            } else if (identifierStart(c)) {
                int end = i + 1;
                while (end < n && identifierPart(sql.charAt(end))) {
                    end++;
                }
                out.append(sql, i, end);
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return i < n ? cut(out, maxChars) : out.toString().stripTrailing();
    }

    /** One space for a run of whitespace and comments (none at the start). */
    private static void space(StringBuilder out) {
        if (!out.isEmpty() && out.charAt(out.length() - 1) != ' ') {
            out.append(' ');
        }
    }

    private static String cut(StringBuilder out, int maxChars) {
        int len = Math.min(out.length(), maxChars);
        while (len > 0 && Character.isWhitespace(out.charAt(len - 1))) {
            len--;
        }
        if (len > 0 && Character.isHighSurrogate(out.charAt(len - 1))) {
            len--;
        }
        return out.substring(0, len) + CUT;
    }

    /**
     * Removes a literal's prefix already copied to {@code out} ({@code E}, {@code B}, {@code X}, {@code N},
     * {@code U&}); returns {@code 'E'} for a literal that reads backslash escapes, {@code 'U'} for one whose
     * backslashes are Unicode escapes (which PostgreSQL accepts only with standard conforming strings), {@code 0}
     * otherwise.
     */
    private static char dropPrefix(StringBuilder out) {
        int len = out.length();
        if (len >= 2 && out.charAt(len - 1) == '&' && (out.charAt(len - 2) == 'u' || out.charAt(len - 2) == 'U')
                && (len == 2 || !identifierPart(out.charAt(len - 3)))) {
            out.setLength(len - 2);
            return 'U';
        }
        if (len >= 1 && "eEbBxXnN".indexOf(out.charAt(len - 1)) >= 0
                && (len == 1 || !identifierPart(out.charAt(len - 2)))) {
            char prefix = Character.toUpperCase(out.charAt(len - 1));
            out.setLength(len - 1);
            return prefix == 'E' ? 'E' : 0;
        }
        return 0;
    }

    /** What a backslash inside a quoted token is. */
    private enum Backslash {
        /** A character (identifiers, {@code U&'...'}). */
        TEXT,
        /** An escape of the next character ({@code E'...'}). */
        ESCAPE,
        /** Either, depending on the session's {@code standard_conforming_strings} ({@code '...'}): unreadable. */
        AMBIGUOUS
    }

    /**
     * End (exclusive) of the token quoted by {@code quote} starting at {@code i} (a doubled quote stands for
     * itself); -1 if unterminated, or if it holds an {@link Backslash#AMBIGUOUS} backslash.
     */
    private static int quotedEnd(String sql, int i, char quote, Backslash backslash) {
        for (int j = i + 1; j < sql.length(); j++) {
            char c = sql.charAt(j);
            if (c == '\\' && backslash == Backslash.AMBIGUOUS) {
                return -1;
            } else if (c == '\\' && backslash == Backslash.ESCAPE) {
                j++;
            } else if (c == quote) {
                if (j + 1 < sql.length() && sql.charAt(j + 1) == quote) {
                    j++;
                } else {
                    return j + 1;
                }
            }
        }
        return -1;
    }

    /** Nested {@code /* ... *}{@code /} comments; the end (exclusive), or -1 if unterminated. */
    private static int blockCommentEnd(String sql, int i) {
        int depth = 0;
        for (int j = i; j + 1 < sql.length(); j++) {
            if (sql.charAt(j) == '/' && sql.charAt(j + 1) == '*') {
                depth++;
                j++;
            } else if (sql.charAt(j) == '*' && sql.charAt(j + 1) == '/') {
                depth--;
                j++;
                if (depth == 0) {
                    return j + 1;
                }
            }
        }
        return -1;
    }

    /** End (exclusive) of a dollar-quote opening tag ({@code $$} or {@code $tag$}) at {@code i}, or -1. */
    private static int dollarTagEnd(String sql, int i) {
        int j = i + 1;
        if (j < sql.length() && sql.charAt(j) != '$' && !identifierStart(sql.charAt(j))) {
            return -1;
        }
        while (j < sql.length() && sql.charAt(j) != '$') {
            char c = sql.charAt(j);
            if (!identifierPart(c) || c == '$') {
                return -1;
            }
            j++;
        }
        return j < sql.length() ? j + 1 : -1;
    }

    /** A numeric literal: digits, '.', '_', letters (exponent, 0x/0o/0b, junk), a sign after an exponent. */
    private static int numberEnd(String sql, int i) {
        int j = i;
        while (j < sql.length()) {
            char c = sql.charAt(j);
            if (Character.isLetterOrDigit(c) || c == '.' || c == '_') {
                j++;
            } else if ((c == '+' || c == '-') && (sql.charAt(j - 1) == 'e' || sql.charAt(j - 1) == 'E')
                    && !sql.substring(i, j).toLowerCase(java.util.Locale.ROOT).startsWith("0x")) {
                j++;
            } else {
                break;
            }
        }
        return j;
    }

    private static boolean identifierStart(char c) {
        return Character.isLetter(c) || c == '_' || c > 127;
    }

    private static boolean identifierPart(char c) {
        return identifierStart(c) || Character.isDigit(c) || c == '$';
    }
}
