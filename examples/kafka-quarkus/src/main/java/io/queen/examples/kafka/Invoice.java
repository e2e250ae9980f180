package io.queen.examples.kafka;

/** The invoice of one order: 20 % tax on top of the order's amount. */
public record Invoice(String orderId, String customerId, long seq, long netCents, long taxCents, long totalCents) {

    static Invoice of(Order o) {
        long tax = Math.round(o.amountCents() * 0.20);
        return new Invoice(o.id(), o.customerId(), o.seq(), o.amountCents(), tax, o.amountCents() + tax);
    }
}
