package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Writes JSON trees to responses as bytes. Resources build {@link JsonNode} trees (exact key names and types
 * the clients read) and answer through here, so no bean serializer ever sees a tree. Thread-safe.
 */
public final class Json {
    /**
     * Writes answers and reads back stored payloads; a stored payload was at most one request body, which the
     * HTTP limit bounds, so its strings are not limited again here.
     */
    public static final ObjectMapper MAPPER = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder()
            .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder()
                    .maxStringLength(Integer.MAX_VALUE).build()).build());

    private Json() {
    }

    public static Response response(int status, JsonNode body) {
        try {
            return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(MAPPER.writeValueAsBytes(body))
                    .build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e);
        }
    }

    public static Response ok(JsonNode body) {
        return response(200, body);
    }
}
