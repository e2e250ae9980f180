package io.queen.auth;

import io.queen.api.RouterErrors;
import io.queen.http.FilterPriority;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.json.JsonString;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The one place access is enforced: after a JAX-RS route matched (unknown routes stay 404), its {@link Access}
 * level is compared with the caller's role, and the caller (tenant, subject, role) is resolved for the request
 * (once per distinct token until its {@code exp}: {@link VerifiedTokens}).
 * Off (the default) it returns at its first line: no header read, no allocation. Routes outside JAX-RS
 * ({@code /metrics*}, {@code /q/health*}, static files) are never filtered. Its only state is a cache of each
 * route's level and the verified tokens; thread-safe.
 */
public class AccessFilter {
    static final String TENANT_HEADER = "X-Queen-Tenant";
    static final String MISSING = "{\"error\":\"Authentication required\"}";
    static final String INVALID = "{\"error\":\"Invalid or expired token\"}";
    static final String FORBIDDEN = "{\"error\":\"Insufficient permissions\"}";

    private final Callers callers;
    private final TokenVerifier verifier;
    private final AuthConfig config;
    private final ConcurrentHashMap<Method, Access.Level> levels = new ConcurrentHashMap<>();
    /** Verified tokens; 10,000 distinct live tokens at most before it starts over. */
    private final VerifiedTokens verified = new VerifiedTokens(10_000);

    AccessFilter(Callers callers, TokenVerifier verifier, AuthConfig config) {
        this.callers = callers;
        this.verifier = verifier;
        this.config = config;
    }

    @ServerRequestFilter(priority = FilterPriority.ACCESS)
    public Response check(ContainerRequestContext request, ResourceInfo resource) {
        if (!callers.active()) {
            return null;
        }
        Caller anonymous = callers.anonymous();
        Caller caller = anonymous;
        if (config.enabled()) {
            Access.Level level = levels.computeIfAbsent(resource.getResourceMethod(),
                    m -> level(m, resource.getResourceClass()));
            String token = token(request.getHeaderString(HttpHeaders.AUTHORIZATION));
            if (token == null) {
                if (level != Access.Level.PUBLIC) {
                    return error(401, MISSING);
                }
            } else {
                long now = System.currentTimeMillis() / 1000;
                Caller known = verified.get(token, now);
                if (known == null) {
                    JsonWebToken jwt;
                    try {
                        jwt = verifier.verify(token);
                    } catch (ParseException e) {
                        return level == Access.Level.PUBLIC ? null : error(401, INVALID);
                    }
                    known = caller(jwt, config, anonymous.tenant());
                    verified.put(token, known, jwt.getExpirationTime(), now);
                }
                Role role = known.role();
                if (role == null ? level != Access.Level.PUBLIC : !role.allows(level)) {
                    return error(403, FORBIDDEN);
                }
                caller = known;
            }
            // with authentication on the body's type is judged here, after the caller (RouterErrors)
            if (RouterErrors.unsupportedBody(request.getHeaderString(HttpHeaders.CONTENT_LENGTH),
                    request.getHeaderString("Transfer-Encoding"), request.getHeaderString(HttpHeaders.CONTENT_TYPE))) {
                return Response.status(415).type(MediaType.APPLICATION_JSON_TYPE).header("Connection", "close")
                        .entity(RouterErrors.UNSUPPORTED_MEDIA_TYPE).build();
            }
        }
        if (config.tenantHeaderTrusted()) {
            String tenant = request.getHeaderString(TENANT_HEADER);
            if (tenant != null && !tenant.isEmpty()) {
                caller = new Caller(Tenants.of(tenant), caller.subject(), caller.role());
            }
        }
        callers.set(caller);
        return null;
    }

    /** The caller a verified token stands for: its tenant claim (else the default tenant), subject and role. */
    static Caller caller(JsonWebToken jwt, AuthConfig config, UUID defaultTenant) {
        String tenant = text(jwt.getClaim(config.tenantClaim()));
        return new Caller(tenant == null || tenant.isEmpty() ? defaultTenant : Tenants.of(tenant), jwt.getSubject(),
                role(jwt));
    }

    /** The route's declared level; a route without one (which RouteAccessTest forbids) is admin-only. */
    static Access.Level level(Method m, Class<?> resourceClass) {
        Access a = m.getAnnotation(Access.class);
        if (a == null) {
            a = resourceClass.getAnnotation(Access.class);
        }
        if (a == null) {
            a = m.getDeclaringClass().getAnnotation(Access.class);
        }
        return a == null ? Access.Level.ADMIN : a.value();
    }

    /** {@code Bearer <jwt>} or the raw token (API spec 1.2); null when absent or blank. */
    static String token(String authorization) {
        if (authorization == null) {
            return null;
        }
        String t = authorization.strip();
        if (t.regionMatches(true, 0, "Bearer", 0, 6) && (t.length() == 6 || t.charAt(6) == ' ')) {
            t = t.substring(6).strip();
        }
        return t.isEmpty() ? null : t;
    }

    /**
     * The union of the roles named by claim {@code role} (a string) and claim {@code roles} (an array of strings);
     * null when neither names a role. The other shapes ({@code role} as an array, {@code roles} as a string, a
     * number) name no role, as in the reference broker.
     */
    static Role role(JsonWebToken jwt) {
        List<String> names = new ArrayList<>(2);
        Object role = jwt.getClaim("role");
        if (isString(role)) {
            names.add(text(role));
        }
        if (jwt.getClaim("roles") instanceof Collection<?> many) {
            for (Object o : many) {
                if (isString(o)) {
                    names.add(text(o));
                }
            }
        }
        return Role.strongest(names);
    }

    private static boolean isString(Object claim) {
        return claim instanceof String || claim instanceof JsonString;
    }

    static String text(Object claim) {
        if (claim == null) {
            return null;
        }
        if (claim instanceof JsonString s) {
            return s.getString();
        }
        return claim instanceof String s ? s : claim.toString();
    }

    private static Response error(int status, String json) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(json).build();
    }
}
