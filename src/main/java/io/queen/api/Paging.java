package io.queen.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code limit} and {@code offset} of a listing (docs/http-api.md): an absent or empty {@code limit} is the
 * route's default and one above the route's maximum is clamped to it; a {@code limit} that is not an integer
 * {@code >= 1} or an {@code offset} that is not an integer {@code >= 0} is a 400 naming the parameter. Immutable.
 */
public record Paging(int limit, int offset) {

    /** Reads the two query parameters of a route whose default limit is {@code defaultLimit}, at most {@code maxLimit}. */
    public static Paging of(String limit, String offset, int defaultLimit, int maxLimit) {
        return new Paging(Math.min(maxLimit, QueryParams.intParam(limit, "limit", defaultLimit, 1)),
                QueryParams.intParam(offset, "offset", 0, 0));
    }

    /** {@code {limit, offset}}: the {@code pagination} object of an answer. */
    public ObjectNode json() {
        return Json.MAPPER.createObjectNode().put("limit", limit).put("offset", offset);
    }
}
