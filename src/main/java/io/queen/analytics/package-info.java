/**
 * The operations views: per-minute metrics flushed to the database, and the analytics, status and
 * PostgreSQL-statistics routes that read them.
 */
package io.queen.analytics;
