/**
 * Authentication and tenants: token verification, the caller of a request, roles, and the access level every route
 * declares ({@link io.queen.auth.Access}).
 */
package io.queen.auth;
