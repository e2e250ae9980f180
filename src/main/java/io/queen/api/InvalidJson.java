package io.queen.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * The one answer to a body that is not well-formed JSON, on every route that reads JSON:
 * {@code Invalid JSON at line L, column C: <short reason>}. The reason is the parser's own sentence with what only
 * concerns the parser cut away (source descriptions, feature and method names, the nested "start marker" location),
 * control characters replaced and its length bounded, so no parser internals reach an answer. Stateless.
 */
public final class InvalidJson {
    /** Longest reason quoted; a parser sentence longer than this is cut (it would be quoting the input). */
    static final int MAX_REASON = 160;
    /** Jackson appends these (to the end of its sentence) when it names where an unclosed value began. */
    private static final Pattern START_MARKER = Pattern.compile("\\s*\\(start marker at .*", Pattern.DOTALL);
    private static final Pattern SOURCE = Pattern.compile("\\s*(at )?\\[Source:.*", Pattern.DOTALL);
    private static final Pattern FROM_METHOD = Pattern.compile(",?\\s*from `[^`]*`");
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

    private InvalidJson() {
    }

    public static ApiException of(JsonProcessingException e) {
        return ApiException.badRequest(message(e));
    }

    public static String message(JsonProcessingException e) {
        String reason = reason(e.getOriginalMessage());
        JsonLocation at = e.getLocation();
        if (at == null || at.getLineNr() < 1) {
            return "Invalid JSON: " + reason;
        }
        return "Invalid JSON at line " + at.getLineNr() + ", column " + Math.max(1, at.getColumnNr()) + ": " + reason;
    }

    static String reason(String original) {
        if (original == null || original.isBlank()) {
            return "malformed input";
        }
        String r = START_MARKER.matcher(original).replaceAll("");
        r = SOURCE.matcher(r).replaceAll("");
        r = FROM_METHOD.matcher(r).replaceAll("");
        r = CONTROL.matcher(r).replaceAll(" ").strip();
        if (r.length() > MAX_REASON) {
            r = r.substring(0, MAX_REASON) + "...";
        }
        return r.isEmpty() ? "malformed input" : r;
    }
}
