package io.queen.examples.billing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import io.queen.connector.QueenIncomingMetadata;
import io.smallrye.common.annotation.Blocking;

/**
 * At-least-once consumer of channel {@code orders} (queue {@code orders}, consumer group {@code order-log}): logs
 * every order and remembers its id. Thread-safe (a concurrent set).
 */
@ApplicationScoped
public class OrderLog {

    private static final Logger LOG = Logger.getLogger(OrderLog.class);

    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    // Acked after the method returns, nacked (the channel's failure-strategy) when it throws.
    @Incoming("orders")
    @Blocking
    public void log(Order order, QueenIncomingMetadata meta) {
        LOG.infof("order %s of customer %s from partition %s", order.id(), order.customerId(), meta.partition());
        seen.add(order.id());
    }

    /** Ids of the orders logged so far. */
    public Set<String> seen() {
        return Set.copyOf(seen);
    }
}
