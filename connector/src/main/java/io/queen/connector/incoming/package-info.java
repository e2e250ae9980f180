/**
 * The incoming channel: long-polled leased batches turned into messages, in partition order, with their lease kept
 * alive.
 */
package io.queen.connector.incoming;
