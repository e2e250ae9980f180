/**
 * What this broker knows of the leases it granted (which partitions a lease covers, what it delivered under each)
 * and their release by a stopping broker, shared by pop, ack and shutdown. Depends on config, sql and wakeup only.
 */
package io.queen.lease;
