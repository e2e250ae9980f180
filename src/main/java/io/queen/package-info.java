/**
 * The broker's entry point ({@link io.queen.QueenMain}). Every feature lives in a subpackage; docs/architecture.md
 * has the package map.
 */
package io.queen;
