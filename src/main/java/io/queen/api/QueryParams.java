package io.queen.api;

/** Query parameter rules shared by the browse routes. Stateless, thread-safe. */
public final class QueryParams {
    private QueryParams() {
    }

    /** An empty value counts as absent (API spec 1.6). */
    public static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** Optional integer query parameter; present but not an integer >= min -> 400 naming it. */
    public static int intParam(String value, String field, int def, int min) {
        if (value == null || value.isBlank()) {
            return def;
        }
        try {
            int v = Integer.parseInt(value.strip());
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through to the 400
        }
        throw ApiException.badRequest(field + " must be an integer >= " + min);
    }
}
