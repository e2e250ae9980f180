package io.queen.status;

import io.queen.api.Paging;
import io.queen.api.Answer;
import static io.queen.api.QueryParams.blankToNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.OffsetDateTime;
import java.util.UUID;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.Times;

/** JSON fragments shared by the resources and status routes (exact key names the clients read). Stateless. */
final class StatusJson {
    private StatusJson() {
    }

    /** {total, pending, processing, completed, failed, deadLetter}. */
    static ObjectNode messages(StatusStore.Figures f) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("total", f.total());
        m.put("pending", f.pending());
        m.put("processing", f.processing());
        m.put("completed", f.completed());
        m.put("failed", f.failed());
        m.put("deadLetter", f.deadLetter());
        return m;
    }

    /** A queue of a listing: {id, name, namespace, task, priority, createdAt, partitions, messages}. */
    static ObjectNode queueEntry(StatusStore.QueueRow q) {
        ObjectNode o = queueHead(Json.MAPPER.createObjectNode(), q.id(), q.name(), q.namespace(), q.task(),
                q.priority(), q.createdAt());
        o.put("partitions", q.partitions());
        o.set("messages", messages(q.figures()));
        return o;
    }

    /** Puts a queue's {id, name, namespace, task, priority, createdAt} into {@code o}; returns {@code o}. */
    static ObjectNode queueHead(ObjectNode o, UUID id, String name, String namespace, String task, int priority,
            OffsetDateTime createdAt) {
        o.put("id", id.toString());
        o.put("name", name);
        o.put("namespace", namespace);
        o.put("task", task);
        o.put("priority", priority);
        o.put("createdAt", Times.millis(createdAt));
        return o;
    }

    /** A queue's detail head: {@link #queueHead} of the queue into {@code o}. */
    static ObjectNode queueHead(ObjectNode o, StatusStore.Queue q) {
        return queueHead(o, q.id(), q.name(), q.namespace(), q.task(), q.priority(), q.createdAt());
    }

    /** Adds a partition's {id, name, createdAt} to {@code partitions}; returns the new object. */
    static ObjectNode partitionHead(ArrayNode partitions, StatusStore.PartitionRow p) {
        ObjectNode o = partitions.addObject();
        o.put("id", p.id().toString());
        o.put("name", p.name());
        o.put("createdAt", Times.millis(p.createdAt()));
        return o;
    }

    /**
     * An optional text filter: blank = absent; a NUL character (which PostgreSQL text cannot hold, so no stored
     * name has one) = 400 naming the parameter rather than a database error.
     */
    static String filter(String value, String field) {
        String v = blankToNull(value);
        if (v != null && v.indexOf('\0') >= 0) {
            throw ApiException.badRequest(field + " must not contain a NUL character");
        }
        return v;
    }

    /** True when {@code name} can be a stored name (PostgreSQL text holds no NUL): otherwise it is simply unknown. */
    static boolean storable(String name) {
        return name != null && name.indexOf('\0') < 0;
    }

    /** A queue listing's answer: {@code {queues:[...], total, pagination}}. */
    static ObjectNode queuePage(StatusStore.QueuePage page, Paging paging) {
        return Answer.page("queues", page.queues(), StatusJson::queueEntry, page.matching(), paging);
    }
}
