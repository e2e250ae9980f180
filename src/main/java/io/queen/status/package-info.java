/**
 * Resources, status and queue views of the admin API, computed from watermarks and cursors by offset arithmetic
 * (db/014_admin_status.sql); no route of this package reads a segment blob except the message list of one queue,
 * which pages through the message browse.
 */
package io.queen.status;
