/**
 * The console's live figures: each broker's recent rates and lease clients, published to the database and summed
 * across brokers.
 */
package io.queen.live;
