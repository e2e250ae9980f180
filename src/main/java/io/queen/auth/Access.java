package io.queen.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The access level a JAX-RS route requires when authentication is on (API spec section 2, column "Access").
 * Every resource method carries one (on the method, or on its class); {@link AccessFilter} enforces it and
 * {@code RouteAccessTest} fails the build for a route without one.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Access {

    Level value();

    /** What a route needs; {@link Role#allows} says which roles have it. */
    enum Level {
        /** Open to anyone, token or not. */
        PUBLIC,
        /** Reads (spec: RO). */
        READ,
        /** Writing messages without reading any (spec: RW; also granted to {@code write-only}). */
        PRODUCE,
        /** Reads and writes (spec: RW). */
        WRITE,
        /** Destructive administration (spec: AD). */
        ADMIN
    }
}
