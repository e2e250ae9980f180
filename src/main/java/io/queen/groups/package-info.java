/**
 * Consumer groups over HTTP: the group views and their administration (delete, subscription, seek).
 */
package io.queen.groups;
