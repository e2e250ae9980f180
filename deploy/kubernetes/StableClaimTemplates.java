import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Build step after quarkus-kubernetes (pom.xml, phase package): removes the labels and annotations quarkus-kubernetes
 * stamps on every object, from the metadata of a StatefulSet's volumeClaimTemplates, leaving their names.
 *
 * <p>Why: a StatefulSet's volumeClaimTemplates cannot be changed once applied; the stamped
 * {@code app.kubernetes.io/version} label and the Quarkus version and build-time annotations change with every
 * release, so the next release's apply would be rejected. Reads and rewrites the YAML as quarkus-kubernetes writes
 * it (two-space indentation, one key per line); idempotent.
 *
 * <p>Usage: {@code java StableClaimTemplates.java target/kubernetes/kubernetes.yml}
 */
public class StableClaimTemplates {
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        if (!Files.exists(file)) {
            return;
        }
        List<String> in = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        int templates = -1; // indentation of the volumeClaimTemplates key while inside its block
        int metadata = -1;  // indentation of a metadata key inside it, while inside that block
        int dropping = -1;  // indentation of the labels/annotations key being dropped
        for (String line : in) {
            int indent = indentOf(line);
            String key = line.strip();
            boolean blank = key.isEmpty();
            if (!blank && dropping >= 0 && indent > dropping) {
                continue;
            }
            dropping = -1;
            if (!blank && metadata >= 0 && indent <= metadata) {
                metadata = -1;
            }
            if (!blank && templates >= 0 && indent <= templates && !key.startsWith("- ")) {
                templates = -1;
            }
            if (key.equals("volumeClaimTemplates:")) {
                templates = indent;
            } else if (templates >= 0 && (key.equals("metadata:") || key.equals("- metadata:"))) {
                metadata = key.startsWith("- ") ? indent + 2 : indent;
            } else if (metadata >= 0 && indent == metadata + 2
                    && (key.equals("labels:") || key.equals("annotations:"))) {
                dropping = indent;
                continue;
            }
            out.add(line);
        }
        Files.write(file, out, StandardCharsets.UTF_8);
    }

    private static int indentOf(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        return i;
    }
}
