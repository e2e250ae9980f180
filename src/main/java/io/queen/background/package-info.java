/**
 * The daemon timers background duties run on, and the warning a duty logs once when the database is out.
 */
package io.queen.background;
