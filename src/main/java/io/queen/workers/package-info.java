/**
 * This broker's worker id, registered in the database unless configured.
 */
package io.queen.workers;
