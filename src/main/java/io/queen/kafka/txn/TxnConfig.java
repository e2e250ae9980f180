package io.queen.kafka.txn;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;

/**
 * Limits and timings of Kafka transactions (Apache Kafka's broker settings of the same meaning are named on each).
 * Defaults live in {@code application.properties}.
 */
@ConfigMapping(prefix = "queen.kafka.txn")
public interface TxnConfig {
    /**
     * Largest {@code transaction.timeout.ms} a producer may ask for ({@code transaction.max.timeout.ms}); a larger
     * one answers INVALID_TRANSACTION_TIMEOUT.
     */
    int maxTimeoutMs();

    /**
     * Most record bytes (the batches as the client sent them) one transaction may stage before its commit; a batch
     * beyond is answered TRANSACTION_ABORTABLE (the producer aborts the transaction).
     */
    MemorySize maxBytes();

    /** How often each broker looks for transactions open past their timeout and aborts them. */
    long timeoutCheckMs();

    /**
     * A transactional id without an open transaction and unused this long is forgotten
     * ({@code transactional.id.expiration.ms}); its next InitProducerId starts it over with a new producer id.
     */
    long idExpirationMs();
}
