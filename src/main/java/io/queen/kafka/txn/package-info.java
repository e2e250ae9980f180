/**
 * Kafka transactions: producer ids and epochs, the transaction coordinator that stages records and offsets and
 * writes them to the log and cursors in one PostgreSQL transaction at EndTxn.
 */
package io.queen.kafka.txn;
