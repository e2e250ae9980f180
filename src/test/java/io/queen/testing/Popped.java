package io.queen.testing;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** What pops deliver, read the way tests state it: the {@code n} of each message's payload, in delivery order. */
public final class Popped {
    private Popped() {
    }

    /** The payloads' {@code n} of one pop answer. */
    public static List<Integer> ns(JsonNode popped) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode m : messages(popped)) {
            out.add(m.get("data").get("n").asInt());
        }
        return out;
    }

    /** Pops {@code queue} (any partition) for {@code group} (null: queue mode), acking each batch, until empty. */
    public static List<Integer> drain(String queue, String group) {
        List<Integer> seen = new ArrayList<>();
        JsonNode p;
        String g = group == null ? "" : "&consumerGroup=" + group;
        while ((p = pop("/api/v1/pop/queue/" + queue + "?batch=50" + g)) != null) {
            seen.addAll(ns(p));
            ackAll(p, "completed", group);
        }
        return seen;
    }
}
