package io.varve.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries of DESIGN.md, checked on the compiled main classes of every module (this
 * module sees them all): {@code core} depends on no other Varve module; the builder, which sits on
 * every Spark job's classpath, never on the reader or Chronicle; the SSD modules ({@code bcms},
 * {@code bufferhash}) on {@code core} only; the SILT store on {@code core}, the builder and the reader; the
 * Spark writer on the builder and {@code core}.
 * Maven's dependency graph allows more than this (a test scope, a dependency added in passing);
 * these rules say what the design allows.
 */
class ModuleBoundariesTest {
  private static JavaClasses varve;

  @BeforeAll
  static void importMainClasses() {
    varve = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.varve");
  }

  @Test
  void coreDependsOnNoOtherModule() {
    check(noClasses().that().resideInAPackage("io.varve.core..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.builder..", "io.varve.reader..", "io.varve.bcms..", "io.varve.bufferhash..", "io.varve.silt..", "io.varve.examples..", "io.varve.cli..",
            "io.varve.benchmarks..", "net.openhft.chronicle.."));
  }

  @Test
  void theBuilderNeverReachesTheReaderOrChronicle() {
    check(noClasses().that().resideInAPackage("io.varve.builder..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.reader..", "io.varve.bcms..", "io.varve.bufferhash..", "io.varve.silt..", "io.varve.examples..", "io.varve.cli..",
            "net.openhft.."));
  }

  @Test
  void theReaderNeverReachesTheBuilder() {
    check(noClasses().that().resideInAPackage("io.varve.reader..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.builder..", "io.varve.bcms..", "io.varve.bufferhash..", "io.varve.silt..", "io.varve.examples..", "io.varve.cli.."));
  }

  @Test
  void theSsdModulesDependOnCoreOnly() {
    check(noClasses().that().resideInAnyPackage("io.varve.bcms..", "io.varve.bufferhash..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.builder..", "io.varve.reader..", "io.varve.silt..", "io.varve.examples..", "io.varve.cli..", "net.openhft.chronicle.."));
    check(noClasses().that().resideInAPackage("io.varve.bcms..")
        .should().dependOnClassesThat().resideInAPackage("io.varve.bufferhash.."));
    check(noClasses().that().resideInAPackage("io.varve.bufferhash..")
        .should().dependOnClassesThat().resideInAPackage("io.varve.bcms.."));
  }

  @Test
  void theSparkWriterReachesOnlyTheBuilderAndCore() {
    // It runs on executors, beside the job's own jars: no reader, no Chronicle.
    check(noClasses().that().resideInAPackage("io.varve.spark..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.reader..", "io.varve.bcms..", "io.varve.bufferhash..", "io.varve.silt..", "io.varve.examples..", "io.varve.cli..",
            "net.openhft.chronicle.."));
  }

  @Test
  void theSiltStoreBuildsOnTheImmutableStoreOnly() {
    // Core, builder and reader; not the other SSD modules, whose cuckoo table it shares through core.
    check(noClasses().that().resideInAPackage("io.varve.silt..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.varve.bcms..", "io.varve.bufferhash..", "io.varve.spark..", "io.varve.examples..", "io.varve.cli..", "io.varve.benchmarks.."));
  }

  @Test
  void theRulesSeeEveryModule() {
    // A rule over classes that were not imported passes vacuously: make sure each module is there.
    for (String module : new String[] {"core", "builder", "reader", "bcms", "bufferhash", "silt", "spark"}) {
      String prefix = "io.varve." + module + ".";
      if (varve.stream().noneMatch(c -> c.getName().startsWith(prefix))) {
        throw new AssertionError("no main class of " + module + " was imported");
      }
    }
  }

  private static void check(ArchRule rule) {
    rule.check(varve);
  }
}
