package io.queen.kafka.txn;

import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The transaction APIs in the Kafka listener's dispatch table, served by {@link TransactionCoordinator}, and the
 * start of its timeout sweep with the listener. Versions stop where {@code transaction.version} 2 begins
 * (AddPartitionsToTxn v4+, EndTxn v5, TxnOffsetCommit v5): the broker announces no such feature, so clients use
 * the explicit AddPartitionsToTxn of version 1 transactions. Stateless, thread-safe.
 */
@ApplicationScoped
class TxnApis implements KafkaApiProvider {
    private final TransactionCoordinator coordinator;

    TxnApis(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public void register(KafkaApis apis) {
        coordinator.start();
        apis.serve(ApiKeys.ADD_PARTITIONS_TO_TXN, 3, (KafkaHandler<AddPartitionsToTxnRequestData>) (c, v, r) ->
                        done(coordinator.addPartitions(c, v, r)))
                .serve(ApiKeys.ADD_OFFSETS_TO_TXN, 4, (KafkaHandler<AddOffsetsToTxnRequestData>) (c, v, r) ->
                        done(coordinator.addOffsets(c, v, r)))
                .serve(ApiKeys.TXN_OFFSET_COMMIT, 4, (KafkaHandler<TxnOffsetCommitRequestData>) (c, v, r) ->
                        done(coordinator.txnOffsetCommit(c, v, r)))
                .serve(ApiKeys.END_TXN, 4, (KafkaHandler<EndTxnRequestData>) (c, v, r) ->
                        done(coordinator.endTxn(c, v, r)))
                .serve(ApiKeys.DESCRIBE_TRANSACTIONS, 0, (KafkaHandler<DescribeTransactionsRequestData>) (c, v, r) ->
                        done(coordinator.describe(c, r)))
                .serve(ApiKeys.LIST_TRANSACTIONS, 2, (KafkaHandler<ListTransactionsRequestData>) (c, v, r) ->
                        done(coordinator.list(c, r)));
    }

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
