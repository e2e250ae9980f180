package io.queen.examples.tracing;

import java.util.concurrent.CompletionStage;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/**
 * {@code POST /orders} with an order as JSON: sends it to queue {@code orders} and answers 204 once the broker
 * stored it. The request's server span is current while it sends, so the message's producer span is its child.
 * Stateless, thread-safe.
 */
@Path("/orders")
public class OrderResource {

    @Inject
    @Channel("new-orders")
    Emitter<Order> orders;

    @POST
    public CompletionStage<Void> place(Order order) {
        return orders.send(order);
    }
}
