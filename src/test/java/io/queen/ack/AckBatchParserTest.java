package io.queen.ack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.api.ApiException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The streaming reading of an ack batch: the values it finds and the 400 it answers, field by field. */
class AckBatchParserTest {
    static final ObjectMapper M = new ObjectMapper();

    static AckBatchParser.Batch parse(String json) {
        return AckBatchParser.parse(M, json.getBytes(StandardCharsets.UTF_8));
    }

    static String error(String json) {
        ApiException e = assertThrows(ApiException.class, () -> parse(json));
        assertEquals(400, e.status());
        return e.getMessage();
    }

    @Test
    void readsEveryFieldInOrderAndSkipsTheRest() {
        AckBatchParser.Batch b = parse("""
                {"x":{"deep":[1,{"a":2}]},"acknowledgments":[
                  {"transactionId":"t0","partitionId":"p0","status":"completed","leaseId":"L","other":[1,2]},
                  {"partitionId":"p1","transactionId":"t1","status":"failed","error":"boom","leaseId":null},
                  {"transactionId":"dup","transactionId":"t2","partitionId":"p2"}
                ],"consumerGroup":"billing","tail":true}""");
        assertEquals("billing", b.group());
        assertEquals(3, b.items().size());
        AckService.AckItem a = b.items().get(0);
        assertEquals(0, a.index());
        assertEquals("t0", a.transactionId());
        assertEquals("p0", a.partitionId());
        assertEquals("completed", a.status());
        assertEquals("L", a.leaseId());
        assertNull(a.error());
        AckService.AckItem f = b.items().get(1);
        assertEquals("failed", f.status());
        assertEquals("boom", f.error());
        assertNull(f.leaseId());
        assertEquals("t2", b.items().get(2).transactionId(), "a repeated key: the last one wins");
    }

    @Test
    void noConsumerGroupNamedIsNull() {
        // null: each item's lease names its group, queue mode without one (AckService)
        assertNull(parse("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"}]}").group());
        assertNull(parse("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"}],"
                + "\"consumerGroup\":\"\"}").group());
        assertNull(parse("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"}],"
                + "\"consumerGroup\":null}").group());
        // an empty batch answers [] before the group is looked at
        assertTrue(parse("{\"acknowledgments\":[],\"consumerGroup\":5}").items().isEmpty());
    }

    @Test
    void anItemsOwnConsumerGroupMustMatchTheRequestsOrIsHonouredWithoutOne() {
        String two = "{\"acknowledgments\":[{\"transactionId\":\"t0\",\"partitionId\":\"p\"%s},"
                + "{\"transactionId\":\"t1\",\"partitionId\":\"p\"%s}]%s}";
        // the same group as the request: accepted
        assertEquals("g", parse(two.formatted(",\"consumerGroup\":\"g\"", "", ",\"consumerGroup\":\"g\"")).group());
        // no request group: the items' group is the batch's (an item naming none follows it)
        assertEquals("g", parse(two.formatted(",\"consumerGroup\":\"g\"", "", "")).group());
        assertEquals("g", parse(two.formatted("", ",\"consumerGroup\":\"g\"", ",\"consumerGroup\":null")).group());
        assertNull(parse(two.formatted(",\"consumerGroup\":\"\"", ",\"consumerGroup\":null", "")).group());
        // a different group: 400 naming the item
        assertEquals("acknowledgments[1].consumerGroup 'h' differs from the request's consumerGroup 'g': one batch"
                + " acknowledges for one consumer group",
                error(two.formatted("", ",\"consumerGroup\":\"h\"", ",\"consumerGroup\":\"g\"")));
        assertEquals("acknowledgments[1].consumerGroup 'h' differs from acknowledgments[0].consumerGroup 'g': one"
                + " batch acknowledges for one consumer group",
                error(two.formatted(",\"consumerGroup\":\"g\"", ",\"consumerGroup\":\"h\"", "")));
        // queue mode named explicitly on the request: an item naming a group is a 400 too
        assertTrue(error(two.formatted(",\"consumerGroup\":\"g\"", "", ",\"consumerGroup\":\"__QUEUE_MODE__\""))
                .startsWith("acknowledgments[0].consumerGroup 'g' differs"));
        assertEquals("acknowledgments[0].consumerGroup must be a string",
                error(two.formatted(",\"consumerGroup\":7", "", "")));
    }

    @Test
    void errorsNameTheField() {
        assertEquals("acknowledgments array is required", error("{}"));
        assertEquals("acknowledgments array is required", error("{\"acknowledgments\":{\"a\":1}}"));
        assertEquals("acknowledgments array is required", error("{\"acknowledgments\":null}"));
        String txn1 = "Each acknowledgment must have a valid transactionId string (acknowledgments[1].transactionId)";
        assertEquals(txn1, error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"},{\"partitionId\":\"p\"}]}"));
        assertEquals(txn1, error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"},7]}"));
        assertEquals(txn1, error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"},"
                + "{\"transactionId\":\"\",\"partitionId\":\"p\"}]}"));
        assertEquals(txn1, error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"},"
                + "{\"transactionId\":3,\"partitionId\":\"p\"}]}"));
        assertEquals("Each acknowledgment must have a valid partitionId string to ensure message uniqueness"
                + " (acknowledgments[0].partitionId)", error("{\"acknowledgments\":[{\"transactionId\":\"t\"}]}"));
        assertEquals("status must be a string",
                error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\",\"status\":1}]}"));
        assertEquals("leaseId must be a string",
                error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\",\"leaseId\":[\"x\"]}]}"));
        assertEquals("error must be a string",
                error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\",\"error\":{}}]}"));
        assertEquals("consumerGroup must be a string",
                error("{\"acknowledgments\":[{\"transactionId\":\"t\",\"partitionId\":\"p\"}],\"consumerGroup\":true}"));
    }

    @Test
    void bodiesThatAreNotOneObjectAnswerAsEveryOtherRoute() {
        assertEquals("Empty request body", error(""));
        assertEquals("Empty request body", error(" \n"));
        assertEquals("Invalid JSON: the body must be a JSON object", error("[1,2]"));
        assertTrue(error("{\"acknowledgments\":[").startsWith("Invalid JSON at line 1, column "));
        assertTrue(error("{\"acknowledgments\":[{\"transactionId\":\"t\",}]}").startsWith("Invalid JSON at line 1, column "));
    }
}
