package io.queen.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md and application.properties name the same settings: every {@code queen.*} property and
 * every environment alias ({@code ${NAME:default}}) of the properties file appears in the doc's settings table,
 * and every property or environment variable that table names exists in the file (an environment variable may
 * also be the MicroProfile Config form of a {@code queen.*} property). The launcher's own variables are in the
 * launcher.
 */
class ConfigurationDocTest {
    static final Path PROPERTIES = Path.of("src/main/resources/application.properties");
    static final Path DOC = Path.of("docs/configuration.md");
    private static final Pattern ALIAS = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*):");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    record Settings(Set<String> properties, Set<String> envs) {
    }

    static Settings fromProperties() throws IOException {
        Set<String> props = new TreeSet<>();
        Set<String> envs = new TreeSet<>();
        for (String line : Files.readAllLines(PROPERTIES, StandardCharsets.UTF_8)) {
            if (line.startsWith("#") || line.startsWith("%") || !line.contains("=")) {
                continue;
            }
            String key = line.substring(0, line.indexOf('='));
            if (key.startsWith("queen.")) {
                props.add(key);
            }
            Matcher m = ALIAS.matcher(line);
            while (m.find()) {
                envs.add(m.group(1));
            }
        }
        return new Settings(props, envs);
    }

    /** The first two columns (env, property) of the rows of one section's tables. */
    static Settings fromDoc(String section) throws IOException {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        int start = doc.indexOf("\n## " + section + "\n");
        assertTrue(start >= 0, "configuration.md has the section " + section);
        int end = doc.indexOf("\n## ", start + 1);
        String body = doc.substring(start, end < 0 ? doc.length() : end);
        Set<String> props = new TreeSet<>();
        Set<String> envs = new TreeSet<>();
        for (String line : body.split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split(" \\| ");
            for (int c = 0; c < Math.min(2, cells.length); c++) {
                Matcher m = CODE.matcher(cells[c]);
                while (m.find()) {
                    String name = m.group(1);
                    if (name.startsWith("queen.")) {
                        props.add(name);
                    } else if (name.matches("[A-Z][A-Z0-9_]*")) {
                        envs.add(name);
                    }
                }
            }
        }
        return new Settings(props, envs);
    }

    static String envForm(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    @Test
    void everySettingOfThePropertiesFileIsDocumented() throws IOException {
        Settings file = fromProperties();
        Settings doc = fromDoc("Settings");
        assertTrue(file.properties().size() > 40 && file.envs().size() > 40, "settings found: " + file);
        Set<String> missing = new TreeSet<>(file.properties());
        missing.removeAll(doc.properties());
        assertEquals(Set.of(), missing, "queen.* properties of application.properties missing from configuration.md");
        missing = new TreeSet<>(file.envs());
        missing.removeAll(doc.envs());
        assertEquals(Set.of(), missing, "environment aliases of application.properties missing from configuration.md");
    }

    @Test
    void everyDocumentedSettingExists() throws IOException {
        Settings file = fromProperties();
        Settings doc = fromDoc("Settings");
        Set<String> unknown = new TreeSet<>(doc.properties());
        unknown.removeAll(file.properties());
        assertEquals(Set.of(), unknown, "configuration.md names properties application.properties does not have");
        Set<String> unknownEnvs = new TreeSet<>(doc.envs());
        unknownEnvs.removeAll(file.envs());
        file.properties().forEach(p -> unknownEnvs.remove(envForm(p)));
        assertEquals(Set.of(), unknownEnvs, "configuration.md names environment variables nothing reads");
    }

    @Test
    void theLaunchersVariablesAreTheLaunchers() throws IOException {
        String launcher = Files.readString(Path.of("src/main/java/io/queen/schema/EmbeddedPostgresLauncher.java"),
                StandardCharsets.UTF_8);
        Settings doc = fromDoc("The embedded PostgreSQL of `./queen run`");
        assertTrue(doc.envs().size() >= 3, "launcher settings documented: " + doc.envs());
        for (String env : doc.envs()) {
            assertTrue(launcher.contains("\"" + env + "\""), env + " is read by EmbeddedPostgresLauncher");
        }
    }

    @Test
    void environmentFormsAreMicroProfileConfigs() {
        assertEquals("QUEEN_POP_MAX_BATCH", envForm("queen.pop.max-batch"));
    }
}
