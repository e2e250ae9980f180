/**
 * The database schema: applied from db/*.sql at every boot before the broker serves, the gate that answers 503 until
 * then, and the embedded PostgreSQL for development.
 */
package io.queen.schema;
