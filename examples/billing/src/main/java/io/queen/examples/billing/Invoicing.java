package io.queen.examples.billing;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import io.queen.connector.QueenTransactions;

/**
 * Exactly-once consume-transform-produce: channel {@code invoicing} reads the same queue as {@link OrderLog} in a
 * consumer group of its own ({@code invoicing}), so it sees every order too; each order's invoice is pushed to
 * the queue of channel {@code invoices} and the order is acked in one broker transaction. Stateless, thread-safe.
 */
@ApplicationScoped
public class Invoicing {

    @Inject
    QueenTransactions transactions;

    // Written only through toChannel(..), the outgoing channel `invoices` would have no upstream: SmallRye then
    // warns SRMSG00207 at start (harmless, its sink exists and toChannel works). This emitter gives it one, and
    // sends manual corrections.
    @Inject
    @Channel("invoices")
    Emitter<Invoice> corrections;

    @Incoming("invoicing")
    public CompletionStage<Void> bill(Message<Order> order) {
        return transactions.begin(order)
                .toChannel("invoices", Invoice.of(order.getPayload()))
                .commit()    // pushes the invoice and acks the order in one POST /api/v1/transaction
                .exceptionallyCompose(order::nack);  // rolled back (e.g. lease lost): nothing written, redelivered
    }
}
