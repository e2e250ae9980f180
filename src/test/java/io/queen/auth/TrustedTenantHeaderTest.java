package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;

/** Authentication off, tenants from {@code X-Queen-Tenant} (QUEEN_TENANT_HEADER_TRUSTED=true, behind a proxy). */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS, initArgs = {
        @ResourceArg(name = "queen.auth.tenant-header-trusted", value = "true")})
class TrustedTenantHeaderTest {

    static HttpRequest.Builder as(String tenant, String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(Http.base() + path));
        return tenant == null ? b : b.header(AccessFilter.TENANT_HEADER, tenant);
    }

    static int pop(String tenant, String queue) {
        return Http.send(as(tenant, "/api/v1/pop/queue/" + queue).GET().build()).status();
    }

    @Test
    void theHeaderSelectsTheTenantAndNoTokenIsNeeded() {
        Http.Reply r = Http.send(as("tenant-one", "/api/v1/push").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"items\":[{\"queue\":\"q\"},{\"queue\":\"q\"}]}"))
                .build());
        assertEquals(201, r.status(), r.body());
        assertEquals(204, pop("tenant-two", "q"));
        assertEquals(204, pop(null, "q"));  // no header: the default tenant
        assertEquals(200, pop("tenant-one", "q"));
        // a UUID names that tenant directly: the default tenant's id is the header-less tenant
        Http.post("/api/v1/push", "{\"items\":[{\"queue\":\"d\"}]}");
        assertEquals(200, pop("00000000-0000-0000-0000-000000000001", "d"));
    }
}
