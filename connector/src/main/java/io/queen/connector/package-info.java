/**
 * The SmallRye Reactive Messaging connector {@code smallrye-queen}: {@link io.queen.connector.QueenConnector}
 * declares every channel attribute and builds the incoming and outgoing channels; the subpackages follow SmallRye
 * Kafka's layout.
 */
package io.queen.connector;
