/**
 * How Java calls SQL functions ({@link io.queen.sql.SqlCalls}): arguments bound by type, rows mapped to records.
 */
package io.queen.sql;
