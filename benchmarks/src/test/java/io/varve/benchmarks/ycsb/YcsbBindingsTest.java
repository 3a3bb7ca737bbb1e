package io.varve.benchmarks.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CountDownLatch;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.ClientThread;
import site.ycsb.DB;
import site.ycsb.DBFactory;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * Every binding under YCSB's own client threads, CoreWorkload and DBWrapper (what {@code
 * site.ycsb.Client} runs, minus its {@code System.exit}): a load and workloads A and F with YCSB's
 * data integrity check on, which verifies every field of every record read against the value
 * CoreWorkload derives from the key and the field name. Each phase opens and closes the store (the
 * last client thread closes it), so the later phases also read what a reopen recovered. Plus the
 * record codec against a HashMap, and scans.
 */
class YcsbBindingsTest {
  private static final int RECORDS = 4000;
  private static final int OPERATIONS = 4000;
  private static final int THREADS = 2;

  @TempDir
  Path temp;

  @BeforeAll
  static void measurements() {
    // YCSB's measurements are one static instance, made on first use with these properties.
    Measurements.setProperties(new Properties());
  }

  @ParameterizedTest
  @ValueSource(strings = {"Silt", "RocksDB", "LMDB", "JE"})
  void workloadsAandFPassYcsbsDataIntegrityCheck(String system) throws Exception {
    String binding = YcsbComparison.BINDINGS.get(system).getName();
    Path dir = temp.resolve(system);
    long verifiedBefore = measured().succeeded("VERIFY");
    runPhase(binding, dir, "workloada", true);
    for (String workload : List.of("workloada", "workloadf")) {
      runPhase(binding, dir, workload, false);
    }
    YcsbOutput after = measured();
    assertEquals(0, after.failures(), "operations or checks that failed (all systems so far)");
    // A and F read about half the time, F's read-modify-writes read too: each read is verified.
    assertTrue(after.succeeded("VERIFY") - verifiedBefore > OPERATIONS, "records verified: "
        + (after.succeeded("VERIFY") - verifiedBefore));
    everyRecordIsWhole(binding, dir);
  }

  /**
   * YCSB's check compares only the fields a read returns: a record that lost fields to an update
   * would pass it. So every record must still have all ten fields of 100 bytes.
   */
  private static void everyRecordIsWhole(String binding, Path dir) throws Exception {
    Properties props = phaseProperties(dir, "workloada");
    KeyNames keys = new KeyNames();
    keys.init(props);
    DB db = (DB) Class.forName(binding).getConstructor().newInstance();
    db.setProperties(props);
    db.init();
    try {
      for (long i = 0; i < RECORDS; i++) {
        Map<String, ByteIterator> record = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", keys.name(i), null, record), keys.name(i));
        assertEquals(10, record.size(), keys.name(i));
        record.values().forEach(value -> assertEquals(100, value.toArray().length));
      }
    } finally {
      db.cleanup();
    }
  }

  /** CoreWorkload's key of a record number (its method is protected). */
  private static final class KeyNames extends CoreWorkload {
    String name(long number) {
      return buildKeyName(number);
    }
  }

  /** Runs one phase of YCSB as its Client does: a workload, a DBWrapper and a ClientThread per thread. */
  private static void runPhase(String binding, Path dir, String workloadFile, boolean load) throws Exception {
    Properties props = phaseProperties(dir, workloadFile);
    CoreWorkload workload = new CoreWorkload();
    workload.init(props);
    Tracer tracer = new Tracer.Builder("YcsbBindingsTest").conf(HTraceConfiguration.EMPTY).build();
    CountDownLatch done = new CountDownLatch(THREADS);
    List<Thread> threads = new ArrayList<>();
    int count = load ? RECORDS : OPERATIONS;
    for (int id = 0; id < THREADS; id++) {
      DB db = DBFactory.newDB(binding, props, tracer);
      ClientThread client = new ClientThread(db, !load, workload, props, count / THREADS + (id < count % THREADS ? 1 : 0), -1, done);
      client.setThreadId(id);
      client.setThreadCount(THREADS);
      threads.add(new Thread(client, "ycsb-client-" + id));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    workload.cleanup();
    assertEquals(0, done.getCount(), "client threads that did not finish");
  }

  private static Properties phaseProperties(Path dir, String workloadFile) throws IOException {
    Properties props = new Properties();
    try (InputStream in = YcsbBindingsTest.class.getResourceAsStream("/ycsb/" + workloadFile)) {
      props.load(in);
    }
    props.setProperty("recordcount", Integer.toString(RECORDS));
    props.setProperty("operationcount", Integer.toString(OPERATIONS));
    props.setProperty(CoreWorkload.DATA_INTEGRITY_PROPERTY, "true");
    props.setProperty(KeyValueDb.DIRECTORY_PROPERTY, dir.toString());
    props.setProperty(KeyValueDb.CACHE_BYTES_PROPERTY, Long.toString(8L << 20));
    // Small log stores, merged often: the SILT store's conversions and merges run within the test.
    props.setProperty("silt.logStoreEntries", "512");
    props.setProperty("silt.hashStoresPerMerge", "2");
    return props;
  }

  /** YCSB's measurements so far (all tests' phases), through its text exporter. */
  private static YcsbOutput measured() throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try (TextMeasurementsExporter exporter = new TextMeasurementsExporter(text)) {
      Measurements.getMeasurements().exportMeasurements(exporter);
    }
    return YcsbOutput.parse(Arrays.asList(text.toString(StandardCharsets.UTF_8).split("\n")));
  }

  @Test
  void perSystemSettingsFallBackToTheValueForAll() {
    YcsbComparison.PerSystem ram = YcsbComparison.PerSystem.parse("2g,silt=500m");
    assertEquals("500m", ram.of("Silt"));
    assertEquals("2g", ram.of("RocksDB"));
    assertEquals("2g, Silt 500m", ram.toString());
    assertThrows(IllegalArgumentException.class, () -> YcsbComparison.PerSystem.parse("Silt=500m"));
    assertThrows(IllegalArgumentException.class, () -> YcsbComparison.PerSystem.parse("2g,Redis=1g"));
  }

  /** A column once added to the tables' headers but not to their rows. */
  @Test
  void everyReportRowHasItsHeadersCells() {
    YcsbComparison.Settings settings = YcsbComparison.Settings.of(Map.of("records", "1000", "operations", "500",
        "rounds", "2", "phases", "C", "ram", "2g,Silt=500m", "heap", "1g"));
    YcsbReport report = new YcsbReport(settings, "--records 1000");
    YcsbComparison.Phase c = YcsbComparison.PHASES.get(3);
    for (int round = 1; round <= 2; round++) {
      for (String system : List.of("Silt", "RocksDB")) {
        YcsbOutput output = YcsbOutput.parse(List.of("[OVERALL], RunTime(ms), 100", "[OVERALL], Throughput(ops/sec), 5000",
            "[READ], Operations, 500", "[READ], AverageLatency(us), 90.5", "[READ], 99thPercentileLatency(us), 400"));
        report.add(new YcsbComparison.Run(system, round, c, output, new YcsbChild.Outcome(0, 300L << 20, 1.5, 400L << 20),
            1L << 30, Map.of("system", system, "openMillis", "20", "diskReads", "300", "ramBytes", "1000"), List.of()));
      }
    }
    List<String> table = Arrays.stream(report.markdown().split("\n")).filter(line -> line.startsWith("|")).toList();
    assertEquals(2 + 4, table.size(), String.join("\n", table));
    long headerCells = table.get(0).chars().filter(ch -> ch == '|').count();
    for (String row : table) {
      assertEquals(headerCells, row.chars().filter(ch -> ch == '|').count(), row);
    }
    assertTrue(table.get(2).startsWith("| Silt #1 | 5,000 | 1.00 | 6,250 | 1.00 |"), table.get(2));
  }

  @Test
  void codecAgreesWithAHashMap() {
    Random random = new Random(24);
    for (int round = 0; round < 2000; round++) {
      Map<String, byte[]> model = randomFields(random, random.nextInt(12));
      byte[] record = YcsbRecords.encode(iterators(model));
      assertSame(model, decoded(record, null));

      Map<String, byte[]> updates = randomFields(random, random.nextInt(4));
      if (!model.isEmpty() && random.nextBoolean()) {
        updates.put(model.keySet().iterator().next(), bytes(random, random.nextInt(300)));
      }
      record = YcsbRecords.merge(record, iterators(updates));
      model.putAll(updates);
      assertSame(model, decoded(record, null));

      Set<String> wanted = new HashSet<>();
      for (String name : model.keySet()) {
        if (random.nextBoolean()) {
          wanted.add(name);
        }
      }
      wanted.add("absent");
      Map<String, byte[]> subset = new HashMap<>(model);
      subset.keySet().retainAll(wanted);
      assertSame(subset, decoded(record, wanted));
    }
    byte[] record = YcsbRecords.encode(iterators(Map.of("field0", new byte[200])));
    assertThrows(IllegalArgumentException.class, () -> decoded(Arrays.copyOf(record, record.length - 1), null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Silt", "RocksDB", "LMDB", "JE"})
  void scansAreInKeyOrderOrNotImplemented(String system) throws Exception {
    DB db = (DB) YcsbComparison.BINDINGS.get(system).getConstructor().newInstance();
    Properties props = new Properties();
    props.setProperty(KeyValueDb.DIRECTORY_PROPERTY, temp.resolve(system).toString());
    props.setProperty(KeyValueDb.CACHE_BYTES_PROPERTY, Long.toString(8L << 20));
    db.setProperties(props);
    db.init();
    try {
      for (String key : List.of("user5", "user1", "user3", "user2", "user4")) {
        assertEquals(Status.OK, db.insert("usertable", key, iterators(Map.of("f", key.getBytes(StandardCharsets.UTF_8)))));
      }
      assertEquals(Status.OK, db.delete("usertable", "user3"));
      assertEquals(Status.NOT_FOUND, db.read("usertable", "user3", null, new HashMap<>()));
      Vector<HashMap<String, ByteIterator>> result = new Vector<>();
      Status status = db.scan("usertable", "user2", 3, null, result);
      if (system.equals("Silt")) {
        assertEquals(Status.NOT_IMPLEMENTED, status);
        return;
      }
      assertEquals(Status.OK, status);
      List<String> values = result.stream().map(r -> r.get("f").toString()).toList();
      assertEquals(List.of("user2", "user4", "user5"), values);
    } finally {
      db.cleanup();
    }
  }

  private static Map<String, byte[]> randomFields(Random random, int count) {
    Map<String, byte[]> fields = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      // Names past one byte of length and non-ASCII ones; values from empty to several varint bytes.
      String name = random.nextInt(10) == 0 ? "fïeld-" + "x".repeat(random.nextInt(200)) : "field" + random.nextInt(15);
      fields.put(name, bytes(random, random.nextInt(10) == 0 ? random.nextInt(20_000) : random.nextInt(130)));
    }
    return fields;
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static Map<String, ByteIterator> iterators(Map<String, byte[]> fields) {
    Map<String, ByteIterator> iterators = new HashMap<>();
    fields.forEach((name, value) -> iterators.put(name, new ByteArrayByteIterator(value)));
    return iterators;
  }

  private static Map<String, byte[]> decoded(byte[] record, Set<String> wanted) {
    Map<String, ByteIterator> result = new HashMap<>();
    YcsbRecords.decode(record, wanted, result);
    Map<String, byte[]> bytes = new HashMap<>();
    result.forEach((name, value) -> bytes.put(name, value.toArray()));
    return bytes;
  }

  private static void assertSame(Map<String, byte[]> expected, Map<String, byte[]> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach((name, value) -> assertArrayEquals(value, actual.get(name), name));
  }
}
