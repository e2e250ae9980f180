package io.queen.examples.billing;

/** The invoice of one order. Immutable. */
public record Invoice(String orderId, String customerId, long amountCents, long vatCents) {

    /** 20 % VAT on top of the order's amount, rounded down to the cent. */
    public static Invoice of(Order order) {
        return new Invoice(order.id(), order.customerId(), order.amountCents(), order.amountCents() / 5);
    }
}
