package io.queen.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The broker's top-level packages ({@code io.queen.<package>} with its subpackages) form a graph without cycles, so
 * each can be read, tested and changed knowing only the packages below it; and the Kafka listener reaches the
 * engine's storage only through the engine's services. Reads the compiled main classes only (no broker started).
 */
class PackageGraphTest {
    /**
     * Kafka listener classes that still reach the engine's storage directly, each named with what it reaches. The
     * store rule skips them; a class leaves this list when it goes through a service instead.
     */
    static final Set<String> STORE_ACCESS_BEING_REMOVED = Set.of(
            // browse.ReadStore.locate (the offset a duplicate batch was written at), segment.TransactionHash and
            // segment.Uuid7 (a record's transaction id): writes go through push.LogWriter, these look-ups do not yet
            "io.queen.kafka.ProduceApi",
            // push.PushStore's SegmentWrite and SegmentResult records, handed to push.LogWriter.InTransaction
            "io.queen.kafka.txn.TransactionCoordinator",
            // browse.ReadStore's rows, as browse.OffsetReader answers them
            "io.queen.kafka.FetchApi",
            // browse.ReadStore and segment.SegmentCodec: reads and decodes segments for Fetch and ShareFetch (the
            // one Kafka class that does), and a record's dead-letter snapshot for share groups
            "io.queen.kafka.RecordBatches",
            // groups.ConsumerGroupStore: deletes a group's cursors (DeleteGroups)
            "io.queen.kafka.group.GroupCoordinator");

    /**
     * ArchUnit announces the Java version it detected at INFO on its first import; a passing run prints nothing.
     * Held here because a logger's level lives only as long as the logger object.
     */
    private static final Logger ARCHUNIT_LOG = quiet(Logger.getLogger("com.tngtech.archunit"));

    private static Logger quiet(Logger logger) {
        logger.setLevel(Level.WARNING);
        return logger;
    }

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.queen");

    /** A store class (its name ends with Store) or a class nested in one (a store's row records). */
    private static final DescribedPredicate<JavaClass> STORE = describe("a *Store class", PackageGraphTest::isStore);

    private static boolean isStore(JavaClass c) {
        return c.getSimpleName().endsWith("Store")
                || c.getEnclosingClass().map(PackageGraphTest::isStore).orElse(false);
    }

    @Test
    void topLevelPackagesFormNoCycle() {
        slices().matching("io.queen.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    /**
     * The Kafka listener's own stores (its offsets, group state, transactions) run their SQL; every other Kafka
     * class uses the engine's services, never another package's store, the segment codec or raw SQL calls.
     */
    /** The Kafka transport carries requests to the APIs' handlers without knowing any API. */
    @Test
    void theKafkaTransportKnowsNoApi() {
        noClasses().that().resideInAPackage("io.queen.kafka.transport..").should().dependOnClassesThat()
                .resideInAnyPackage("io.queen.kafka", "io.queen.kafka.group..", "io.queen.kafka.txn..",
                        "io.queen.kafka.cluster..")
                .check(MAIN);
    }

    @Test
    void kafkaReachesTheEngineStorageThroughServices() {
        DescribedPredicate<JavaClass> engineStorage = resideInAnyPackage("io.queen.segment..", "io.queen.sql..")
                .or(STORE.and(resideOutsideOfPackage("io.queen.kafka..")))
                .as("the engine's storage (another package's *Store, io.queen.segment, io.queen.sql)");
        noClasses().that().resideInAPackage("io.queen.kafka..")
                .and(describe("not a Kafka store", (JavaClass c) -> !isStore(c)))
                .and(describe("not in STORE_ACCESS_BEING_REMOVED",
                        (JavaClass c) -> !STORE_ACCESS_BEING_REMOVED.contains(c.getName().split("\\$")[0])))
                .should().dependOnClassesThat(engineStorage)
                .check(MAIN);
    }
}
