package io.queen.auth;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.jwt.build.Jwt;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Authentication on (HS256): 401/403 answers, roles per route, public routes, producerSub stamping. */
@QuarkusTest
@TestProfile(JwtProfile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class AuthTest {
    static final String ADMIN = Tokens.token("root", "admin", null);
    static final String RW = Tokens.token("worker", "read-write", null);
    static final String RO = Tokens.token("viewer", "read-only", null);
    static final String WO = Tokens.token("sensor", "write-only", null);
    static final String MISSING = "{\"error\":\"Authentication required\"}";
    static final String INVALID = "{\"error\":\"Invalid or expired token\"}";
    static final String FORBIDDEN = "{\"error\":\"Insufficient permissions\"}";

    static String push(String queue, String extra) {
        return "{\"items\":[{\"queue\":\"" + queue + "\",\"payload\":{\"k\":1}" + extra + "}]}";
    }

    static void assertReply(int status, String body, Http.Reply r) {
        assertEquals(status, r.status(), r.body());
        assertEquals(body, r.body());
    }

    @Test
    void noTokenIs401WithTheSpecBody() {
        assertReply(401, MISSING, Tokens.post(null, "/api/v1/push", push("a1", "")));
        assertReply(401, MISSING, Tokens.get(null, "/api/v1/dlq"));
        assertReply(401, MISSING, Tokens.get(null, "/api/v1/pop/queue/a1"));
        assertReply(401, MISSING, Tokens.get("", "/api/v1/dlq"));
    }

    @Test
    void badExpiredOrForeignTokensAre401() {
        String expired = Jwt.claims().subject("late").claim("role", "admin")
                .issuedAt(Instant.now().minusSeconds(7200)).expiresAt(Instant.now().minusSeconds(3600))
                .signWithSecret(Tokens.SECRET);
        String otherKey = Jwt.claims().subject("x").claim("role", "admin").issuedAt(Instant.now())
                .expiresAt(Instant.now().plusSeconds(600)).signWithSecret("another-secret-0123456789abcdef-0123456789");
        String noExp = Jwt.claims().subject("x").claim("role", "admin").issuedAt(Instant.now())
                .expiresAt(0L).signWithSecret(Tokens.SECRET);
        for (String t : List.of(expired, otherKey, "not.a.jwt", "garbage", noExp)) {
            assertReply(401, INVALID, Tokens.post(t, "/api/v1/push", push("a2", "")));
        }
        // an alg=none token (the signature stripped) is refused too
        String[] parts = ADMIN.split("\\.");
        String none = java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes()) + "." + parts[1] + ".";
        assertReply(401, INVALID, Tokens.get(none, "/api/v1/dlq"));
    }

    @Test
    void bearerAndRawTokensAreAccepted() {
        assertEquals(201, Tokens.post(RW, "/api/v1/push", push("a3", "")).status());
        Http.Reply raw = Tokens.post("raw:" + RW, "/api/v1/push", push("a3", ""));
        assertEquals(201, raw.status(), raw.body());
    }

    @Test
    void publicRoutesNeedNoToken() {
        assertEquals(200, Tokens.get(null, "/health").status());
        assertEquals(200, Tokens.get(null, "/metrics/prometheus").status());
        assertEquals(200, Tokens.get(null, "/q/health/live").status());
        assertEquals(200, Tokens.get("garbage", "/health").status());
        assertEquals(404, Tokens.get(null, "/api/v1/no-such-route").status());
    }

    @Test
    void readOnlyReadsButNeverWrites() {
        assertEquals(200, Tokens.get(RO, "/api/v1/dlq").status());
        assertEquals(200, Tokens.get(RO, "/api/v1/messages?queue=r1").status());
        assertEquals(200, Tokens.get(RO, "/api/v1/analytics/retention").status());
        assertReply(403, FORBIDDEN, Tokens.post(RO, "/api/v1/push", push("r1", "")));
        assertReply(403, FORBIDDEN, Tokens.get(RO, "/api/v1/pop/queue/r1"));
        assertReply(403, FORBIDDEN, Tokens.post(RO, "/api/v1/configure", "{\"queue\":\"r1\"}"));
        assertReply(403, FORBIDDEN, Tokens.post(RO, "/api/v1/ack", "{}"));
        assertReply(403, FORBIDDEN, Tokens.delete(RO, "/api/v1/resources/queues/r1"));
    }

    @Test
    void postgresStatsAreForAdminsOnly() {
        // they show what other sessions on the database run
        for (String token : List.of(RO, RW, WO)) {
            assertReply(403, FORBIDDEN, Tokens.get(token, "/api/v1/analytics/postgres-stats"));
        }
        Http.Reply r = Tokens.get(ADMIN, "/api/v1/analytics/postgres-stats");
        assertEquals(200, r.status(), r.body());
    }

    @Test
    void writeOnlyProducesButNeverReads() {
        assertEquals(201, Tokens.post(WO, "/api/v1/push", push("w1", "")).status());
        assertReply(403, FORBIDDEN, Tokens.get(WO, "/api/v1/pop/queue/w1"));
        assertReply(403, FORBIDDEN, Tokens.get(WO, "/api/v1/dlq"));
        assertReply(403, FORBIDDEN, Tokens.get(WO, "/api/v1/messages?queue=w1"));
        assertReply(403, FORBIDDEN, Tokens.post(WO, "/api/v1/fetch", "{\"entries\":[]}"));
        assertReply(403, FORBIDDEN, Tokens.post(WO, "/api/v1/transaction", "{\"operations\":[]}"));
    }

    @Test
    void readWriteConsumesButDoesNotAdminister() {
        assertEquals(201, Tokens.post(RW, "/api/v1/push", push("m1", "")).status());
        assertEquals(200, Tokens.get(RW, "/api/v1/pop/queue/m1?batch=10").status());
        assertEquals(200, Tokens.get(RW, "/api/v1/dlq").status());
        assertReply(403, FORBIDDEN, Tokens.delete(RW, "/api/v1/resources/queues/m1"));
        assertReply(403, FORBIDDEN, Tokens.delete(RW, "/api/v1/consumer-groups/g"));
        assertReply(403, FORBIDDEN, Tokens.delete(RW, "/api/v1/consumer-groups/g/queues/m1"));
        Http.Reply del = Tokens.delete(ADMIN, "/api/v1/resources/queues/m1");
        assertEquals(200, del.status(), del.body());
        assertEquals(true, json(del.body()).get("existed").asBoolean());
    }

    @Test
    void rolesArrayAndUnknownRoles() {
        String both = Jwt.claims().subject("duo").claim("roles", List.of("read-only", "write-only"))
                .issuedAt(Instant.now()).expiresAt(Instant.now().plusSeconds(600)).signWithSecret(Tokens.SECRET);
        assertEquals(201, Tokens.post(both, "/api/v1/push", push("ra1", "")).status());
        assertEquals(200, Tokens.get(both, "/api/v1/pop/queue/ra1").status());
        String ro = Jwt.claims().subject("solo").claim("roles", List.of("read-only")).issuedAt(Instant.now())
                .expiresAt(Instant.now().plusSeconds(600)).signWithSecret(Tokens.SECRET);
        assertReply(403, FORBIDDEN, Tokens.post(ro, "/api/v1/push", push("ra1", "")));
        assertEquals(200, Tokens.get(ro, "/api/v1/dlq").status());
        String noRole = Tokens.token("nobody", null, null);
        String oddRole = Tokens.token("odd", "superuser", null);
        for (String t : List.of(noRole, oddRole)) {
            assertReply(403, FORBIDDEN, Tokens.get(t, "/api/v1/dlq"));
            assertEquals(200, Tokens.get(t, "/health").status());
        }
    }

    static String signed(String claim, Object value) {
        return Jwt.claims().subject("shape").claim(claim, value).issuedAt(Instant.now())
                .expiresAt(Instant.now().plusSeconds(600)).signWithSecret(Tokens.SECRET);
    }

    @Test
    void roleNamesAreMatchedExactly() {
        for (String name : List.of("Admin", "ADMIN", "Read-Only", " admin", "admin ")) {
            assertReply(403, FORBIDDEN, Tokens.get(Tokens.token("cased", name, null), "/api/v1/dlq"));
            assertReply(403, FORBIDDEN, Tokens.get(signed("roles", List.of(name)), "/api/v1/dlq"));
        }
        assertEquals(200, Tokens.get(Tokens.token("exact", "read-only", null), "/api/v1/dlq").status());
    }

    @Test
    void roleIsAStringAndRolesAnArray() {
        // the other shapes name no role, whichever claim carries them
        assertReply(403, FORBIDDEN, Tokens.get(signed("roles", "admin"), "/api/v1/dlq"));
        assertReply(403, FORBIDDEN, Tokens.get(signed("role", List.of("admin")), "/api/v1/dlq"));
        assertReply(403, FORBIDDEN, Tokens.get(signed("role", 3), "/api/v1/dlq"));
        assertReply(403, FORBIDDEN, Tokens.get(signed("roles", List.of(List.of("admin"))), "/api/v1/dlq"));
        // both claims count: their union
        String union = Jwt.claims().subject("both").claim("role", "read-only").claim("roles", List.of("write-only"))
                .issuedAt(Instant.now()).expiresAt(Instant.now().plusSeconds(600)).signWithSecret(Tokens.SECRET);
        assertEquals(201, Tokens.post(union, "/api/v1/push", push("rs1", "")).status());
        assertEquals(200, Tokens.get(union, "/api/v1/pop/queue/rs1").status());
        String upgraded = Jwt.claims().subject("up").claim("role", "read-only").claim("roles", List.of("admin"))
                .issuedAt(Instant.now()).expiresAt(Instant.now().plusSeconds(600)).signWithSecret(Tokens.SECRET);
        assertEquals(200, Tokens.delete(upgraded, "/api/v1/resources/queues/rs1").status());
    }

    static Http.Reply postAs(String token, String path, String contentType) {
        return Http.send(Tokens.request(token, path).header("Content-Type", contentType)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(push("ct1", ""))).build());
    }

    @Test
    void authenticationComesBeforeTheBodysType() {
        assertReply(401, MISSING, postAs(null, "/api/v1/push", "text/xml"));
        assertReply(401, INVALID, postAs("garbage", "/api/v1/push", "text/xml"));
        assertReply(403, FORBIDDEN, postAs(RO, "/api/v1/push", "application/x-www-form-urlencoded"));
        Http.Reply authenticated = postAs(RW, "/api/v1/push", "text/xml");
        assertEquals(415, authenticated.status(), authenticated.body());
        assertTrue(json(authenticated.body()).get("error").asText().contains("JSON"), authenticated.body());
        assertEquals(201, postAs(RW, "/api/v1/push", "application/json; charset=utf-8").status());
    }

    @Test
    void malformedParametersAreRefusedBeforeAuthentication() {
        // the URI checks run ahead of the access filter: a parameter no resource takes is a 400 whoever asks
        Http.Reply anonymous = Tokens.get(null, "/api/v1/pop/queue/g%FF");
        assertEquals(400, anonymous.status(), anonymous.body());
        assertTrue(anonymous.body().contains("valid UTF-8"), anonymous.body());
        assertReply(401, MISSING, Tokens.get(null, "/api/v1/pop/queue/g"));
    }

    static JsonNode popOne(String token, String queue) {
        Http.Reply r = Tokens.get(token, "/api/v1/pop/queue/" + queue + "?batch=10&autoAck=true");
        assertEquals(200, r.status(), r.body());
        JsonNode msgs = json(r.body()).get("messages");
        assertEquals(1, msgs.size(), r.body());
        return msgs.get(0);
    }

    @Test
    void producerSubStampedFromJwt() {
        String producer = Tokens.token("producer-7", "read-write", null);
        assertEquals(201, Tokens.post(producer, "/api/v1/push", push("ps1", "")).status());
        assertEquals("producer-7", popOne(RW, "ps1").get("producerSub").asText());
        // browse shows the same stamp
        JsonNode browsed = json(Tokens.get(RO, "/api/v1/messages?queue=ps1").body()).get("messages");
        assertEquals("producer-7", browsed.get(0).get("producerSub").asText());
    }

    @Test
    void producerSubSpoofingIgnoredWithJwt() {
        String producer = Tokens.token("honest", "write-only", null);
        Http.Reply r = Tokens.post(producer, "/api/v1/push", push("ps2", ",\"producerSub\":\"spoof\""));
        assertEquals(201, r.status(), r.body());
        assertEquals("honest", popOne(RW, "ps2").get("producerSub").asText());
    }

    @Test
    void transactionPushesAreStampedToo() {
        String producer = Tokens.token("txn-writer", "read-write", null);
        Http.Reply r = Tokens.post(producer, "/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":"
                + "[{\"queue\":\"ps3\",\"payload\":{\"k\":1},\"producerSub\":\"spoof\"}]}]}");
        assertEquals(200, r.status(), r.body());
        assertTrue(json(r.body()).get("success").asBoolean(), r.body());
        assertEquals("txn-writer", popOne(RW, "ps3").get("producerSub").asText());
    }

    @Test
    void aTokenWithoutSubPushesWithoutProducerSub() {
        String anonymous = Tokens.token(null, "read-write", null);
        assertEquals(201, Tokens.post(anonymous, "/api/v1/push", push("ps4", ",\"producerSub\":\"spoof\"")).status());
        assertTrue(popOne(RW, "ps4").get("producerSub").isNull());
    }

    @Test
    void aVerifiedTokenVouchesOnlyForItsOwnBytes() {
        assertEquals(200, Tokens.get(RO, "/api/v1/dlq").status());
        assertEquals(200, Tokens.get(RO, "/api/v1/dlq").status());  // the second time from the verified-token cache
        String[] parts = RO.split("\\.");
        java.util.Base64.Decoder dec = java.util.Base64.getUrlDecoder();
        String claims = new String(dec.decode(parts[1]), java.nio.charset.StandardCharsets.UTF_8)
                .replace("read-only", "admin");
        String forged = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString(claims.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "." + parts[2];
        assertReply(401, INVALID, Tokens.delete(forged, "/api/v1/resources/queues/x"));
        assertReply(403, FORBIDDEN, Tokens.delete(RO, "/api/v1/resources/queues/x"));
    }
}
