/**
 * The {@code smallrye-queen} connector: binds SmallRye Reactive Messaging channels to Queen queues.
 * (Skeleton; the connector itself is issue 6.)
 */
package io.queen.connector;
