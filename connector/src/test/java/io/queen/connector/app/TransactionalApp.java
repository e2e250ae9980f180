package io.queen.connector.app;

import jakarta.inject.Inject;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import io.queen.connector.QueenTransactions;

/**
 * What the test applications that write under {@link QueenTransactions} share: the transactions and the outgoing
 * channel {@code out} they write to. Thread-safe (stateless).
 */
abstract class TransactionalApp {

    @Inject
    QueenTransactions transactions;

    /** Unused: declares the outgoing channel {@code out} so that SmallRye creates its sink. */
    @Inject
    @Channel("out")
    Emitter<Object> out;
}
