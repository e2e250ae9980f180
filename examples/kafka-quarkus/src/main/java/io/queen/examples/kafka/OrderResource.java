package io.queen.examples.kafka;

import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/**
 * {@code POST /orders}: writes the order to topic {@code orders}, keyed by customer, and answers once the broker has
 * acknowledged the record (204). Same key, same partition: a customer's orders stay in order.
 */
@Path("/orders")
public class OrderResource {

    @Channel("orders-out")
    Emitter<Record<String, Order>> orders;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public CompletionStage<Void> place(Order order) {
        if (order == null || order.id() == null || order.id().isBlank() || order.customerId() == null
                || order.customerId().isBlank()) {
            throw new BadRequestException("an order needs an id and a customerId");
        }
        if (order.amountCents() < 0) {
            throw new BadRequestException("amountCents must not be negative: " + order.amountCents());
        }
        return orders.send(Record.of(order.customerId(), order));
    }
}
