package io.queen.connector.incoming;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;

import io.queen.connector.client.QueenClient;

/**
 * An incoming channel's consumer lag: the messages of its queue (of its partition, when the channel pops one) that
 * its consumer group has not consumed yet, i.e. the sum of the broker's {@code offsetLag} over the group's
 * partitions of the queue ({@code GET /api/v1/consumer-groups/:group}; queue mode is the group
 * {@code __QUEUE_MODE__}). Polled on the connector's timer every {@code lag-interval} ms, off the message path; a
 * poll is skipped while the previous one is still out, and a failed poll keeps the last value.
 * <p>
 * Thread-safe: the value is an atomic; start and stop are called once each.
 */
final class ConsumerLag {

    private static final System.Logger LOG = System.getLogger(ConsumerLag.class.getName());

    private final QueenClient client;
    private final String group;
    private final String queue;
    private final String partition;
    private final AtomicLong lag;
    private final AtomicBoolean polling = new AtomicBoolean();
    private volatile ScheduledFuture<?> timer;

    ConsumerLag(QueenClient client, String group, String queue, String partition, AtomicLong lag) {
        this.client = client;
        this.group = group;
        this.queue = queue;
        this.partition = partition;
        this.lag = lag;
    }

    void start(ScheduledExecutorService scheduler, long intervalMs) {
        if (intervalMs > 0) {
            timer = scheduler.scheduleWithFixedDelay(this::poll, 0, intervalMs, TimeUnit.MILLISECONDS);
        }
    }

    void stop() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    private void poll() {
        if (!polling.compareAndSet(false, true)) {
            return;
        }
        try {
            client.consumerGroup(group).whenComplete((view, failure) -> {
                polling.set(false);
                if (failure != null) {
                    LOG.log(System.Logger.Level.DEBUG, "consumer lag of {0} on {1} not read: {2}", group, queue,
                            failure.toString());
                } else {
                    lag.set(of(view, queue, partition));
                }
            });
        } catch (RuntimeException e) {
            polling.set(false);
        }
    }

    /** The sum of {@code offsetLag} over the partitions of {@code queue} in a group view ({@code partition} null = all). */
    static long of(JsonNode view, String queue, String partition) {
        long sum = 0;
        for (JsonNode p : view.path(queue).path("partitions")) {
            if (partition == null || partition.equals(p.path("partition").asText(null))) {
                sum += Math.max(0, p.path("offsetLag").asLong(0));
            }
        }
        return sum;
    }
}
