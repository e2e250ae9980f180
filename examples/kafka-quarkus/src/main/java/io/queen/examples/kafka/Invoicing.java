package io.queen.examples.kafka;

import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;

/**
 * Reads topic {@code orders} (consumer group {@code invoicing}) and writes one invoice per order to topic
 * {@code invoices} under the order's key. Records of one partition are processed one after the other and the
 * offset of an order is committed only after its invoice was acknowledged by the broker.
 */
@ApplicationScoped
public class Invoicing {

    @Incoming("orders")
    @Outgoing("invoices")
    public Record<String, Invoice> invoice(Record<String, Order> order) {
        return Record.of(order.key(), Invoice.of(order.value()));
    }
}
