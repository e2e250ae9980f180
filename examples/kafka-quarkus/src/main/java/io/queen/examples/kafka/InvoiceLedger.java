package io.queen.examples.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Collects every invoice of topic {@code invoices} (consumer group {@code invoice-ledger}) in arrival order;
 * {@code GET /invoices} lists them.
 */
@ApplicationScoped
@Path("/invoices")
public class InvoiceLedger {
    private final List<Invoice> received = new ArrayList<>();

    @Incoming("invoices-in")
    public synchronized void record(Invoice invoice) {
        received.add(invoice);
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public synchronized List<Invoice> invoices() {
        return List.copyOf(received);
    }
}
