/**
 * HTTP plumbing shared by every resource: body and query readers that answer a 400 naming the field, the JSON error
 * shapes, the body limits and their 413s, and the answers written as bytes on the hot paths.
 */
package io.queen.api;
