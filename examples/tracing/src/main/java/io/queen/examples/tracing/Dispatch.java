package io.queen.examples.tracing;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/** Consumer of queue {@code shipments}: logs each shipment. Its consumer span ends the order's trace. Stateless. */
@ApplicationScoped
public class Dispatch {

    private static final Logger LOG = Logger.getLogger(Dispatch.class);

    @Incoming("dispatch")
    public void dispatch(Shipment shipment) {
        LOG.infof("shipment of order %s (%s)", shipment.orderId(), shipment.item());
    }
}
