/**
 * Push maintenance mode: the switch, and the spool that holds pushes on disk while it is on and replays them through
 * the write path after.
 */
package io.queen.maintenance;
