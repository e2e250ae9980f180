package io.queen.examples.billing;

import java.util.concurrent.CompletionStage;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

import io.smallrye.common.annotation.Blocking;

/** {@code POST /orders} with an order as JSON: answers 204 once the broker stored it. Stateless, thread-safe. */
@Path("/orders")
public class OrderResource {

    @Inject
    OrderDesk desk;

    @POST
    @Blocking   // OrderDesk.place may wait for room in its window
    public CompletionStage<Void> place(Order order) {
        return desk.place(order);
    }
}
