package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.queen.testing.Commands;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./queen token} (docs/security.md): the token it prints with the broker's {@code JWT_SECRET} is accepted
 * by a broker with authentication on, with the role it names; a token signed with another secret is refused.
 */
@QuarkusTest
@TestProfile(JwtProfile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class DevTokenTest {
    private static final String PUSH = "{\"items\":[{\"queue\":\"dev-token\",\"payload\":{\"n\":1}}]}";

    static String token(String secret, String... args) throws Exception {
        assumeTrue(Commands.onPath("openssl"),
                "./queen token needs openssl on PATH (.ci/run installs it); not checked");
        List<String> cmd = new ArrayList<>(List.of("bash", "queen", "token"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JWT_SECRET", secret);
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "./queen token finished");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), err);
        assertTrue(out.matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+"), "a JWT: " + out);
        return out;
    }

    @Test
    void aReadWriteTokenPushesAndPops() throws Exception {
        String t = token(Tokens.SECRET, "--role", "read-write", "--sub", "alice");
        assertEquals(201, Tokens.post(t, "/api/v1/push", PUSH).status());
        var pop = Tokens.get(t, "/api/v1/pop/queue/dev-token?wait=false");
        assertEquals(200, pop.status(), pop.body());
        assertTrue(pop.body().contains("\"producerSub\":\"alice\""), "the token's sub is stamped: " + pop.body());
    }

    @Test
    void theRoleIsTheOneAskedFor() throws Exception {
        String readOnly = token(Tokens.SECRET, "--role", "read-only");
        assertEquals(403, Tokens.post(readOnly, "/api/v1/push", PUSH).status());
        assertEquals(200, Tokens.get(readOnly, "/api/v1/dlq").status());
        String admin = token(Tokens.SECRET, "--role", "admin");
        assertEquals(200, Tokens.get(admin, "/api/v1/system/maintenance").status());
        String byDefault = token(Tokens.SECRET);
        assertEquals(403, Tokens.get(byDefault, "/api/v1/system/maintenance").status(), "read-write by default");
    }

    @Test
    void aTokenSignedWithAnotherSecretIsRefused() throws Exception {
        String t = token("not-the-brokers-secret-0123456789abcdef", "--role", "admin");
        assertEquals(401, Tokens.get(t, "/api/v1/dlq").status());
    }
}
