/**
 * The write path: this package owns every write to the log. {@link io.queen.push.LogWriter} is the one way in,
 * for fused writes (HTTP push, Kafka Produce, the push-maintenance spool's drain) and for writes inside a caller's
 * transaction (the transaction route, stream cycles, Kafka EndTxn, the warm-up); {@link io.queen.push.PushFusion}
 * and {@link io.queen.push.PushStore}'s bundle call are reachable only through it. The one other SQL path into the
 * log, a DLQ replay's {@code queen.log_dlq_move_v1} (it moves and writes in one statement), reports its segment
 * through {@link io.queen.push.LogWriter#moved}. What holds pushes during
 * maintenance ({@link io.queen.push.PushHold}) is an interface owned here, so the write path depends on no
 * maintenance class.
 */
package io.queen.push;
