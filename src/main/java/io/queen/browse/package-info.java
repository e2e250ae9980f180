/**
 * Non-destructive reads of the log: the message browser, reads by offset ({@code /api/v1/fetch}, the Kafka Fetch),
 * and the segment reads they share ({@link io.queen.browse.ReadStore}).
 */
package io.queen.browse;
