package io.queen.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Function;

/**
 * Builds the JSON answers of the listing routes, so every page has one shape: {@code {<rows>:[...], total,
 * pagination:{limit, offset}}} (key names the clients read). The resources answer the tree through
 * {@link Json#ok}. Stateless, thread-safe.
 */
public final class Answer {
    private Answer() {
    }

    /** An empty answer object. */
    public static ObjectNode object() {
        return Json.MAPPER.createObjectNode();
    }

    /**
     * A page: {@code rows} mapped by {@code row} under {@code key}, then {@code total} (every row matching) and
     * {@code pagination}.
     */
    public static <T> ObjectNode page(String key, Iterable<T> rows, Function<T, ? extends JsonNode> row, long total,
            Paging paging) {
        ObjectNode out = object();
        ArrayNode arr = out.putArray(key);
        rows.forEach(r -> arr.add(row.apply(r)));
        out.put("total", total);
        out.set("pagination", paging.json());
        return out;
    }
}
