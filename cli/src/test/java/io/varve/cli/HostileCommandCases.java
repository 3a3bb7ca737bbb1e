package io.varve.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the hostile command cases of {@code src/test/resources/hostile/cli} ({@link
 * HostileCommandCase} describes the format). To regenerate them after a change here:
 *
 * <pre>
 * ./mvnw -q -B -pl cli -am test-compile
 * java -cp cli/target/test-classes io.varve.cli.HostileCommandCases cli/src/test/resources/hostile/cli
 * </pre>
 *
 * <p>Each is a misuse of {@code varve} (bad options, missing or wrong files, bad input bytes,
 * damaged stores) with the exit code and the words the command must answer with; a few are inputs
 * that look hostile but are valid, with what they must build.
 *
 * <p>The stores that cases start from ({@code given: store NAME}) hold {@code a -> 1}, {@code b ->
 * 22}, {@code c -> 333}: variable-size records, so the store has an offsets file.
 */
final class HostileCommandCases {
  private static final String HELP = "'varve build --help' describes its options";
  private static final String UTF8_HINT = "the input must be UTF-8 text: convert it first";
  static final String DAMAGED = "damaged store: ";
  static final String REBUILD = "rebuild the store, or restore it from a copy";
  private static final String TSV = "a\t1\nb\t22\nc\t333\n";

  private HostileCommandCases() {}

  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : "cli/src/test/resources/hostile/cli");
    Files.createDirectories(folder);
    for (Map.Entry<String, byte[]> file : variants().entrySet()) {
      Files.write(folder.resolve(file.getKey()), file.getValue());
    }
  }

  static Map<String, byte[]> variants() {
    Map<String, HostileCommandCase> cases = new LinkedHashMap<>();
    general(cases);
    buildOptions(cases);
    buildFiles(cases);
    buildInput(cases);
    invalidUtf8(cases);
    json(cases);
    merge(cases);
    reindex(cases);
    readers(cases);
    artifacts(cases);
    HostileShardedCases.add(cases);
    demos(cases);
    Map<String, byte[]> files = new LinkedHashMap<>();
    cases.forEach((name, c) -> files.put(name, c.toBytes()));
    return files;
  }

  static HostileCommandCase add(Map<String, HostileCommandCase> cases, String name, String why) {
    HostileCommandCase c = new HostileCommandCase().why(why);
    if (cases.put(name, c) != null) {
      throw new IllegalStateException("two cases named " + name);
    }
    return c;
  }

  /** A build of {@code in.tsv} (the usual three records) with {@code options} appended. */
  private static HostileCommandCase build(Map<String, HostileCommandCase> cases, String name, String why, String options) {
    return add(cases, name, why).run(("build {dir}/in.tsv --out {dir}/out " + options).trim()).text("in.tsv", TSV);
  }

  private static byte[] bytes(Object... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object part : parts) {
      if (part instanceof String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      } else if (part instanceof Integer b) {
        out.write(b);
      } else {
        out.writeBytes((byte[]) part);
      }
    }
    return out.toByteArray();
  }

  private static void general(Map<String, HostileCommandCase> cases) {
    add(cases, "no-arguments", "No command at all: the usage, on stderr, and exit 2.")
        .run("").exit(2).stderr("varve: missing COMMAND", "Usage: varve [-h] [-V] COMMAND");
    add(cases, "unknown-command", "A command that does not exist is named, and the usage follows.")
        .run("frobnicate {dir}").exit(2).stderr("varve: unknown command 'frobnicate'", "Usage: varve [-h] [-V] COMMAND");
    add(cases, "option-instead-of-a-command", "An option where the command should be.")
        .run("--out {dir}/out").exit(2).stderr("varve: unknown command '--out'");
    add(cases, "help-after-a-command", "--help after a command prints the usage and succeeds, whatever else is there.")
        .run("build {dir}/nope.tsv --help --colour").exit(0).stdout("Usage: varve build", "--out=DIR");
  }

  private static void buildOptions(Map<String, HostileCommandCase> cases) {
    build(cases, "build-unknown-option-last", "Issue 19, finding 8: an unknown option last on the line is unknown, not 'needs a value'.",
        "--some-unknown-flag")
        .exit(2).stderr("varve build: unknown option --some-unknown-flag\n" + HELP).stderrNot("needs a value");
    add(cases, "build-unknown-option-first", "An unknown option first does not swallow the input file as its value.")
        .run("build --some-unknown-flag {dir}/in.tsv --out {dir}/out").text("in.tsv", TSV)
        .exit(2).stderr("unknown option --some-unknown-flag\n" + HELP);
    build(cases, "build-unknown-option-with-value", "An unknown option written --name=value.", "--colour=blue")
        .exit(2).stderr("unknown option --colour\n" + HELP);
    build(cases, "build-option-typo", "A misspelt option is named with the option meant.", "--dupliates last-wins")
        .exit(2).stderr("unknown option --dupliates (did you mean --duplicates?)");
    add(cases, "build-short-option", "A one-dash option is not taken for a second input file in silence.")
        .run("build {dir}/in.tsv -o {dir}/out").text("in.tsv", TSV)
        .exit(2).stderr("Missing required option: '--out=DIR'", HELP);
    add(cases, "build-no-arguments", "build alone: what is missing, and the usage.")
        .run("build").exit(2).stderr("Missing required parameter: 'INPUT'", HELP);
    add(cases, "build-no-out", "No --out: where the store would go is missing.")
        .run("build {dir}/in.tsv").text("in.tsv", TSV)
        .exit(2).stderr("Missing required option: '--out=DIR'", HELP);
    add(cases, "build-no-input", "Only --out: the input is missing.")
        .run("build --out {dir}/out").exit(2).stderr("Missing required parameter: 'INPUT'");
    add(cases, "build-two-inputs", "Two inputs: build reads one.")
        .run("build {dir}/in.tsv {dir}/in.tsv --out {dir}/out").text("in.tsv", TSV)
        .exit(2).stderr("unexpected argument '", HELP);
    add(cases, "build-out-without-value", "--out last, without its directory.")
        .run("build {dir}/in.tsv --out").text("in.tsv", TSV).exit(2).stderr("Missing required parameter for option '--out' (DIR)");
    add(cases, "build-out-followed-by-an-option", "--out followed by a switch: the switch is not taken for the directory.")
        .run("build {dir}/in.tsv --out --header").text("in.tsv", TSV)
        .exit(2).stderr("Expected parameter for option '--out' but found '--header'");
    add(cases, "build-out-followed-by-an-unknown-option", "--out followed by a misspelt option: not taken for a directory.")
        .run("build {dir}/in.tsv --out --hedaer").text("in.tsv", TSV)
        .exit(2).stderr("--out --hedaer: a directory name that starts with - is more likely a misspelt option");
    add(cases, "build-out-empty", "An empty --out would be the working directory: refused.")
        .run("build {dir}/in.tsv --out ''").text("in.tsv", TSV).exit(2).stderr("--out is empty: give the directory of the new store");
    add(cases, "build-out-twice", "Two --out: which one was meant is not guessed.")
        .run("build {dir}/in.tsv --out {dir}/a --out {dir}/b").text("in.tsv", TSV).exit(2).stderr("option '--out' (DIR) should be specified only once");
    build(cases, "build-switch-with-value", "A switch given a value.", "--header=yes")
        .exit(2).stderr("Invalid value for option '--header': 'yes' is not a boolean");
    build(cases, "build-switch-twice", "A switch given twice.", "--header --header").exit(2).stderr("option '--header' should be specified only once");
    build(cases, "build-format-unknown", "An input format that does not exist.", "--format xml")
        .exit(2).stderr("unknown input format 'xml' (expected tsv, csv or jsonl)");
    build(cases, "build-duplicates-unknown", "A duplicate policy that does not exist.", "--duplicates first-wins")
        .exit(2).stderr("--duplicates expects fail or last-wins, got 'first-wins'");
    build(cases, "build-memory-not-a-size", "A memory budget that is not a size.", "--memory lots")
        .exit(2).stderr("Invalid value for option '--memory': expects a size such as 4k, 256m or 1g, got 'lots'");
    build(cases, "build-memory-zero", "A zero memory budget.", "--memory 0").exit(2).stderr("--memory must be at least 2m, got 0 bytes");
    build(cases, "build-memory-negative", "A negative memory budget.", "--memory=-1g")
        .exit(2).stderr("--memory must be at least 2m, got -1073741824 bytes");
    build(cases, "build-memory-overflows", "A memory budget past 2^63 bytes.", "--memory 99999999999999g")
        .exit(2).stderr("Invalid value for option '--memory': is far too large, got '99999999999999g'");
    build(cases, "build-memory-more-than-the-heap", "A budget no heap here holds: refused before any work, not an OutOfMemoryError later.",
        "--memory 1000g")
        .exit(2).stderr("--memory 1000g leaves too little of this JVM's", "java -Xmx");
    build(cases, "build-keys-per-block-not-a-number", "A knob that is not a number.", "--keys-per-block many")
        .exit(2).stderr("Invalid value for option '--keys-per-block': 'many' is not an int");
    build(cases, "build-keys-per-block-too-small", "A knob under its range.", "--keys-per-block 8")
        .exit(2).stderr("--keys-per-block must be in [16, 640], got 8");
    build(cases, "build-bucket-size-zero", "An ECT bucket size of 0.", "--bucket-size 0")
        .exit(2).stderr("--bucket-size must be in [1, ");
    build(cases, "build-skip-levels-negative", "A negative knob.", "--skip-levels=-1").exit(2).stderr("--skip-levels must be in [0, ");
    build(cases, "build-huffman-max-huge", "A knob past an int.", "--huffman-max 99999999999")
        .exit(2).stderr("--huffman-max must be in [1, 256], got 99999999999");
    build(cases, "build-index-unknown", "An index kind that does not exist.", "--index trie")
        .exit(2).stderr("unknown index kind 'trie' (known: ect, blocked, paged)");
    build(cases, "build-knobs-of-both-kinds", "Knobs of the two index kinds at once.", "--bucket-size 32 --keys-per-block 64")
        .exit(2).stderr("--keys-per-block is a knob of the blocked index, not of an ECT index");
    build(cases, "build-block-size-zero", "A block size of 0 (which the library takes for 'dense').", "--block-size 0")
        .exit(2).stderr("--block-size must be a power of two from 512 bytes to 1m, got 0");
    build(cases, "build-block-size-negative", "A negative block size.", "--block-size=-4k")
        .exit(2).stderr("--block-size must be a power of two from 512 bytes to 1m, got -4096");
    build(cases, "build-block-size-not-a-power-of-two", "A block size that no page alignment suits.", "--block-size 3000")
        .exit(2).stderr("block size 3000 does not suit page alignment 4096");
    build(cases, "build-page-alignment-bad", "A page alignment that is not a power of two.", "--page-alignment 1000")
        .exit(2).stderr("page alignment must be 0 or a power of two from 512 to 4096: 1000");
    build(cases, "build-key-mode-bad", "A signature of 0 bits.", "--key-mode signature:0")
        .exit(2).stderr("--key-mode expects full, none or signature:K with K from 1 to 64, got 'signature:0'");
    build(cases, "build-sparse-without-keys", "A sparse index needs the keys that --key-mode none throws away.",
        "--key-mode none --block-size 4k")
        .exit(2).stderr("a sparse index needs full keys");
    build(cases, "build-key-column-name-without-header", "A column name with no header line to find it in.", "--key-column name")
        .exit(2).stderr("key column 'name' is a name, which needs a header line");
    build(cases, "build-key-column-index-too-large", "A column index past an int.", "--key-column 99999999999")
        .exit(2).stderr("key column index 99999999999 is too large");
    add(cases, "build-header-lacks-the-column", "The header does not name the key column.")
        .run("build {dir}/in.tsv --out {dir}/out --header --key-column id").text("in.tsv", "name\tvalue\na\t1\n")
        .exit(2).stderr("in.tsv: line 1: the header has no column named 'id' for the key (it has 'name', 'value')");
    build(cases, "build-temp-missing", "A --temp directory that does not exist.", "--temp {dir}/nope")
        .exit(2).stderr("nope: the --temp directory does not exist: create it, or leave --temp out");
    build(cases, "build-temp-is-a-file", "A --temp that is a file.", "--temp {dir}/in.tsv").exit(2).stderr("in.tsv is not a directory");
  }

  private static void buildFiles(Map<String, HostileCommandCase> cases) {
    add(cases, "build-input-missing", "An input file that does not exist.")
        .run("build {dir}/nope.tsv --out {dir}/out").exit(2).stderr("varve build: no such file or directory: ", "nope.tsv");
    add(cases, "build-input-is-a-directory", "A directory given as the input file.")
        .run("build {dir} --out {dir}/out").exit(2).stderr("is a directory: give a TSV, CSV or JSON-lines file (or - for stdin)");
    add(cases, "build-input-empty-name", "An empty input file name.")
        .run("build '' --out {dir}/out").exit(2).stderr("the input file name is empty");
    add(cases, "build-input-dangling-link", "An input that is a symbolic link to nothing.")
        .given("symlink in.tsv nope.tsv").run("build {dir}/in.tsv --out {dir}/out").exit(2).stderr("no such file or directory: ", "in.tsv");
    add(cases, "build-input-unreadable", "An input file this user may not read (skipped when run as root, who may).")
        .given("unreadable in.tsv").run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", TSV)
        .exit(2).stderr("varve build: permission denied: ", "in.tsv");
    add(cases, "build-out-in-a-read-only-directory", "--out in a directory this user may not write in (skipped when run as root).")
        .given("dir ro").given("read-only ro").run("build {dir}/in.tsv --out {dir}/ro/out").text("in.tsv", TSV)
        .exit(2).stderr("varve build: permission denied: this user may not write in ", "ro");
    build(cases, "build-temp-read-only", "A --temp directory this user may not write in (skipped when run as root).", "--temp {dir}/ro")
        .given("dir ro").given("read-only ro")
        .exit(2).stderr("varve build: permission denied: this user may not write in ", "ro");
    build(cases, "build-out-exists", "The store directory exists already: it is left alone.", "")
        .given("dir out").exit(2).stderr("out already exists", "remove it, or give another --out");
    add(cases, "build-out-is-a-file", "--out names an existing file.")
        .run("build {dir}/in.tsv --out {dir}/in.tsv").text("in.tsv", TSV).exit(2).stderr("in.tsv already exists", "give another --out");
    add(cases, "build-out-parent-missing", "--out in a directory that does not exist.")
        .run("build {dir}/in.tsv --out {dir}/no/such/out").text("in.tsv", TSV)
        .exit(2).stderr("the parent of the store directory does not exist");
    add(cases, "build-out-under-a-file", "--out under a file.")
        .run("build {dir}/in.tsv --out {dir}/in.tsv/out").text("in.tsv", TSV).exit(2).stderr("in.tsv is a file, not a directory");
  }

  private static void buildInput(Map<String, HostileCommandCase> cases) {
    add(cases, "build-empty-input", "An empty input builds an empty store, with a warning (it may be the wrong file).")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "")
        .exit(0).stdout("0 records").stderr("warning: ", "in.tsv holds no records: the store is empty").creates("out");
    add(cases, "build-from-empty-stdin", "Nothing on stdin: an empty store, with the warning naming stdin.")
        .run("build - --out {dir}/out").exit(0).stderr("warning: stdin holds no records").creates("out");
    add(cases, "build-header-only", "A header and no records: an empty store, with the warning.")
        .run("build {dir}/in.csv --out {dir}/out --header").text("in.csv", "key,value\n")
        .exit(0).stderr("holds no records").creates("out");
    add(cases, "build-blank-lines-only", "Blank lines only (CRLF among them): no records.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "\n\r\n\n")
        .exit(0).stderr("holds no records").creates("out");
    add(cases, "build-duplicate-key", "A repeated key under the default policy: the key, both lines, and the option to give.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "a\t1\nb\t2\n\na\t3\n")
        .exit(2).stderr("in.tsv: duplicate key \"a\" on lines 1 and 4; give --duplicates last-wins to keep the last value")
        .stderrNot("DuplicatePolicy", "LAST_WINS");
    add(cases, "build-duplicate-key-in-csv-records-over-lines", "Lines are where the records start, quoted line breaks counted.")
        .run("build {dir}/in.csv --out {dir}/out").text("in.csv", "x,\"two\nlines\"\n\"a\",1\n\"x\",\"3\"\n")
        .exit(2).stderr("duplicate key \"x\" on lines 1 and 4", "--duplicates last-wins");
    add(cases, "build-duplicate-key-in-json-lines", "A repeated key in JSON lines.")
        .run("build {dir}/in.jsonl --out {dir}/out").text("in.jsonl", "{\"key\":\"k\",\"value\":\"1\"}\n{\"value\":\"2\",\"key\":\"k\"}\n")
        .exit(2).stderr("duplicate key \"k\" on lines 1 and 2", "--duplicates last-wins");
    add(cases, "build-duplicate-key-from-stdin", "From stdin the lines cannot be found again: said so.")
        .run("build - --out {dir}/out").stdin("in.tsv").text("in.tsv", "a\t1\na\t2\n")
        .exit(2).stderr("stdin: duplicate key \"a\" (read from stdin, so its lines are not known); give --duplicates last-wins");
    add(cases, "build-duplicate-empty-key", "The empty key, twice.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "\t1\n\t2\n")
        .exit(2).stderr("duplicate key \"\" on lines 1 and 2");
    add(cases, "build-duplicate-key-with-a-tab", "A key with an escaped tab is shown escaped.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "a\\tb\t1\na\\tb\t2\n")
        .exit(2).stderr("duplicate key \"a\\tb\" on lines 1 and 2");
    add(cases, "build-duplicates-last-wins", "With --duplicates last-wins the last value stays.")
        .run("build {dir}/in.tsv --out {dir}/out --duplicates last-wins").text("in.tsv", "a\t1\na\t2\n")
        .exit(0).stdout("1 records (2 put, 1 duplicates dropped)")
        .run("get {dir}/out a").exit(0).stdoutIs("a\t2\n").creates("out");
    add(cases, "build-crlf-line-endings", "CRLF line endings: the CR is not part of the value.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "a\t1\r\nb\t22\r\n")
        .exit(0).run("get {dir}/out a b").exit(0).stdoutIs("a\t1\nb\t22\n").creates("out");
    add(cases, "build-crlf-in-csv", "CRLF in CSV, inside and outside quotes: only the line ending goes.")
        .run("build {dir}/in.csv --out {dir}/out").text("in.csv", "a,\"x\r\ny\"\r\nb,2\r\n")
        .exit(0).run("dump {dir}/out").exit(0).stdout("a\tx\\r\\ny\n", "b\t2\n").creates("out");
    add(cases, "build-byte-order-mark", "A UTF-8 byte order mark is not part of the first key.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes(0xEF, 0xBB, 0xBF, "a\t1\n"))
        .exit(0).run("get {dir}/out a").exit(0).stdoutIs("a\t1\n").creates("out");
    add(cases, "build-nul-byte", "A NUL byte is valid UTF-8 and keys and values are bytes: kept as it is.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes("a\tx", 0, "y\n"))
        .exit(0).run("get {dir}/out a --values").exit(0).stdoutIs("x\u0000y\n").creates("out");
    add(cases, "build-long-line", "A 70,000-char key (longer than the parser's 64 Ki-char buffer) and a short record after it.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "k".repeat(70_000) + "\tlong\nb\t2\n")
        .exit(0).stdout("2 records").run("get {dir}/out b").exit(0).stdoutIs("b\t2\n").creates("out");
    add(cases, "build-tsv-missing-value-column", "A TSV line without the value column.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "a\t1\nb\n")
        .exit(2).stderr("in.tsv: line 2: 1 field, value column 1 needs at least 2");
    add(cases, "build-tsv-backslash-at-the-end",
        "A backslash before a line break escapes it, as in PostgreSQL's COPY: the line break is data.")
        .run("build {dir}/in.tsv --out {dir}/out").text("in.tsv", "a\tC:\\dir\\\nb\t2\n")
        .exit(0).run("get {dir}/out a --values").exit(0).stdoutIs("C:\\dir\nb\n").creates("out");
    add(cases, "build-csv-unclosed-quote", "A quoted CSV field never closed.")
        .run("build {dir}/in.csv --out {dir}/out").text("in.csv", "a,1\nb,\"2\nc,3\n")
        .exit(2).stderr("in.csv: line 2: a quoted field that starts on this record is never closed");
    add(cases, "build-csv-text-after-a-quote", "Text after a closing quote.")
        .run("build {dir}/in.csv --out {dir}/out").text("in.csv", "a,\"1\"x\n")
        .exit(2).stderr("line 1: expected ',' or the end of the line after a closing quote");
  }

  private static void invalidUtf8(Map<String, HostileCommandCase> cases) {
    StringBuilder many = new StringBuilder();
    for (int i = 1; i < 5000; i++) {
      many.append('k').append(i).append('\t').append(i).append('\n');
    }
    byte[] before = many.toString().getBytes(StandardCharsets.UTF_8);
    add(cases, "build-invalid-utf8-line-5000",
        "Issue 19, finding 5: a 0xFF byte on line 5000 exits 2, not 3 (I/O error), naming its exact line, column and byte offset.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes(before, "k5000\tv", 0xFF, "\nk5001\t1\n"))
        .exit(2).stderr("in.tsv: line 5000, column 8: byte 0xFF at byte offset " + (before.length + 7) + " is not valid UTF-8", UTF8_HINT)
        .stderrNot("I/O error");
    add(cases, "build-invalid-utf8-first-byte", "The very first byte.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes(0x80, "a\t1\n"))
        .exit(2).stderr("line 1, column 1: byte 0x80 at byte offset 0 is not valid UTF-8", UTF8_HINT);
    add(cases, "build-invalid-utf8-last-line-without-line-feed", "On a last line that has no line feed.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes("a\t1\nb\t2", 0xFE))
        .exit(2).stderr("line 2, column 4: byte 0xFE at byte offset 7 is not valid UTF-8");
    add(cases, "build-invalid-utf8-in-a-quoted-csv-field", "Latin-1 inside a quoted CSV field that spans lines: the byte's own line.")
        .run("build {dir}/in.csv --out {dir}/out").file("in.csv", bytes("a,\"one\ncaf", 0xE9, "\"\n"))
        .exit(2).stderr("in.csv: line 2, column 4: byte 0xE9 at byte offset 10 is not valid UTF-8", "iconv -f ISO-8859-1 -t UTF-8");
    add(cases, "build-invalid-utf8-in-a-json-string", "Latin-1 inside a JSON string.")
        .run("build {dir}/in.jsonl --out {dir}/out").file("in.jsonl", bytes("{\"key\":\"caf", 0xE9, "\",\"value\":1}\n"))
        .exit(2).stderr("in.jsonl: line 1, column 12: byte 0xE9 at byte offset 11 is not valid UTF-8");
    add(cases, "build-invalid-utf8-in-a-json-field-skipped", "Latin-1 in a JSON field the build does not read, after a long first line.")
        .run("build {dir}/in.jsonl --out {dir}/out")
        .file("in.jsonl", bytes("{\"key\":\"a\",\"value\":\"" + "x".repeat(70_000) + "\"}\n{\"key\":\"b\",\"value\":\"1\",\"note\":\"\u00e9t", 0xE9, "\"}\n"))
        .exit(2).stderr("in.jsonl: line 2, column 34: byte 0xE9 at byte offset 70057 is not valid UTF-8");
    add(cases, "build-json-nul-byte-first", "A NUL byte at the start of JSON lines (from which Jackson alone would guess UTF-16).")
        .run("build {dir}/in.jsonl --out {dir}/out").file("in.jsonl", bytes(0, "{\"key\":\"a\",\"value\":\"1\"}\n"))
        .exit(2).stderr("in.jsonl: line 1, column 2: Illegal character ((CTRL-CHAR, code 0))");
    add(cases, "build-json-non-ascii-then-an-error", "A syntax error after non-ASCII text: the column counts bytes.")
        .run("build {dir}/in.jsonl --out {dir}/out").text("in.jsonl", "{\"key\":\"\u00e9\u00e9\",\"value\":01}\n")
        .exit(2).stderr("in.jsonl: line 1, column 24: Invalid numeric value: Leading zeroes not allowed");
    add(cases, "build-invalid-utf8-in-a-skipped-column", "In a column the build does not read: the input is still not UTF-8.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes("a\t1\tcaf", 0xE9, "\n"))
        .exit(2).stderr("line 1, column 8: byte 0xE9");
    add(cases, "build-invalid-utf8-from-stdin", "From stdin, with the same precision.")
        .run("build - --out {dir}/out").stdin("in.tsv").file("in.tsv", bytes("a\t1\nb\t", 0xC0, 0xAF, "\n"))
        .exit(2).stderr("varve build: stdin: line 2, column 3: byte 0xC0 at byte offset 6 is not valid UTF-8");
    add(cases, "build-utf16-with-byte-order-mark", "A UTF-16LE file (as Windows tools write them) fails on its first byte.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes(0xFF, 0xFE, "a", 0, "\t", 0, "1", 0, "\n", 0))
        .exit(2).stderr("line 1, column 1: byte 0xFF at byte offset 0 is not valid UTF-8", UTF8_HINT);
    add(cases, "build-encoded-surrogate", "A surrogate encoded as UTF-8 (CESU-8) is not UTF-8.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes("a\t", 0xED, 0xA0, 0x80, "\n"))
        .exit(2).stderr("line 1, column 3: bytes 0xED 0xA0 0x80 at byte offset 2 are not valid UTF-8");
    add(cases, "build-sequence-cut-at-the-end", "A multi-byte sequence cut short by the end of the input.")
        .run("build {dir}/in.tsv --out {dir}/out").file("in.tsv", bytes("a\tcaf", 0xC3))
        .exit(2).stderr("line 1, column 6: byte 0xC3 at byte offset 5 is not valid UTF-8");
  }

  private static void json(Map<String, HostileCommandCase> cases) {
    String[][] bad = {
      // name, line, expected fragment
      {"json-not-an-object", "[1,2]", "line 1, column 1: expected '{' to start the line's JSON object, found an array"},
      {"json-a-bare-string", "\"a\"", "expected '{' to start the line's JSON object, found a string"},
      {"json-bad-escape", "{\"key\":\"a\\q\",\"value\":\"1\"}", "line 1, column 11: Unrecognized character escape 'q'"},
      {"json-truncated-object", "{\"key\":\"a\",\"value\":\"1\"", "line 1: the object is not closed on its line"},
      {"json-missing-value-field", "{\"key\":\"a\"}", "line 1: the object has no field 'value' (the value)"},
      {"json-field-twice", "{\"key\":\"a\",\"key\":\"b\",\"value\":\"1\"}", "field 'key' appears twice in the object"},
      {"json-trailing-text", "{\"key\":\"a\",\"value\":\"1\"} x", "Unrecognized token 'x'"},
      {"json-unpaired-surrogate", "{\"key\":\"\\ud800\",\"value\":\"1\"}", "field 'key' holds an unpaired UTF-16 surrogate (not valid Unicode)"},
      {"json-raw-tab-in-a-string", "{\"key\":\"a\tb\",\"value\":\"1\"}", "Illegal unquoted character ((CTRL-CHAR, code 9))"},
      {"json-single-quotes", "{'key':'a','value':'1'}", "line 1, column 2: Unexpected character ("},
      {"json-bad-number", "{\"key\":\"a\",\"value\":01}", "Invalid numeric value: Leading zeroes not allowed"},
      {"json-deep-nesting", "{\"key\":\"a\",\"other\":" + "[".repeat(20_000), "exceeds the maximum allowed"},
    };
    for (String[] c : bad) {
      add(cases, "build-" + c[0], "JSON lines: " + c[0].substring(5).replace('-', ' ') + ".")
          .run("build {dir}/in.jsonl --out {dir}/out").text("in.jsonl", "{\"key\":\"ok\",\"value\":\"fine\"}\n" + c[1] + "\n")
          .exit(2).stderr("in.jsonl: line 2", c[2].replace("line 1", "line 2"));
    }
    add(cases, "build-json-numbers-and-null", "Numbers and null where strings are expected: an error naming the file, line and option.")
        .run("build {dir}/in.jsonl --out {dir}/out").text("in.jsonl", "{\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\",\"value\":null}\n")
        .exit(2).stderr("in.jsonl: line 2, column 20: field 'value' is null, not a string: give --json-text");
    add(cases, "build-json-text", "With --json-text, numbers, null and arrays are stored as their JSON text.")
        .run("build {dir}/in.jsonl --out {dir}/out --json-text")
        .text("in.jsonl", "{\"key\":1,\"value\":null}\n{\"key\":1.5e3,\"value\":[true, {\"a\" : 2}]}\n")
        .exit(0).run("get {dir}/out 1 1.5e3 --values").exit(0).stdoutIs("null\n[true,{\"a\":2}]\n").creates("out");
  }

  private static void merge(Map<String, HostileCommandCase> cases) {
    add(cases, "merge-no-arguments", "merge alone.")
        .run("merge").exit(2).stderr("Missing required options and parameters: '--out=DIR', 'BASE'", "'varve merge --help'");
    add(cases, "merge-no-out", "A base but no --out.")
        .given("store base").run("merge {dir}/base").exit(2).stderr("Missing required option: '--out=DIR'");
    add(cases, "merge-base-missing", "A base that does not exist.")
        .run("merge {dir}/nope --out {dir}/out").exit(2).stderr("no such file or directory: ", "nope: not a store directory");
    add(cases, "merge-base-is-a-file", "A base that is a file.")
        .run("merge {dir}/in.tsv --out {dir}/out").text("in.tsv", TSV).exit(2).stderr("in.tsv is a file, not a store directory");
    add(cases, "merge-base-not-a-store", "A base that is an empty directory.")
        .given("dir empty").run("merge {dir}/empty --out {dir}/out").exit(2).stderr("empty is not a varve store: it has no meta file");
    add(cases, "merge-base-missing-a-listed-file", "A base whose meta lists an index file that is gone: damaged (exit 1).")
        .given("store base").given("delete base/index").run("merge {dir}/base --out {dir}/out")
        .exit(1).stderr("varve merge: " + DAMAGED, "index: missing, but the meta file lists it", REBUILD);
    add(cases, "merge-base-truncated", "A base whose data file was cut short.")
        .given("store base").given("truncate base/data 100").run("merge {dir}/base --out {dir}/out")
        .exit(1).stderr(DAMAGED, "data");
    add(cases, "merge-upserts-missing", "An upserts file that does not exist: refused before any work.")
        .given("store base").run("merge {dir}/base --out {dir}/out --upserts {dir}/nope.tsv")
        .exit(2).stderr("no such file or directory: ", "nope.tsv");
    add(cases, "merge-deletes-is-a-directory", "A deletes file that is a directory.")
        .given("store base").run("merge {dir}/base --out {dir}/out --deletes {dir}").exit(2).stderr("is a directory");
    add(cases, "merge-both-from-stdin", "Upserts and deletes cannot both be stdin.")
        .given("store base").run("merge {dir}/base --out {dir}/out --upserts - --deletes -")
        .exit(2).stderr("--upserts and --deletes cannot both read stdin (-)");
    add(cases, "merge-unknown-option-last", "Finding 8 for merge.")
        .given("store base").run("merge {dir}/base --out {dir}/out --some-unknown-flag")
        .exit(2).stderr("varve merge: unknown option --some-unknown-flag");
    add(cases, "merge-upserts-not-utf8", "Upserts with a Latin-1 byte: the file, its line and byte.")
        .given("store base").run("merge {dir}/base --out {dir}/out --upserts {dir}/up.tsv")
        .file("up.tsv", bytes("d\t4\ne\tcaf", 0xE9, "\n"))
        .exit(2).stderr("up.tsv: line 2, column 6: byte 0xE9 at byte offset 9 is not valid UTF-8");
    add(cases, "merge-deletes-bad-json", "A deletes file in JSON lines with a broken line.")
        .given("store base").run("merge {dir}/base --out {dir}/out --deletes {dir}/gone.jsonl")
        .text("gone.jsonl", "{\"key\":\"a\"}\n{\"key\":}\n")
        .exit(2).stderr("gone.jsonl: line 2, column 8: Unexpected character ('}' (code 125)): expected a value");
    add(cases, "merge-out-is-the-base", "The new store cannot replace a base.")
        .given("store base").run("merge {dir}/base --out {dir}/base").exit(2).stderr("base already exists", "give another --out");
    add(cases, "merge-key-mode-back-to-full", "Keys thrown away do not come back.")
        .given("store sig signature:8").run("merge {dir}/sig --out {dir}/out --key-mode full").exit(2).stderr("full");
    add(cases, "merge-temp-missing", "A --temp directory that does not exist.")
        .given("store base").run("merge {dir}/base --out {dir}/out --temp {dir}/nope")
        .exit(2).stderr("the --temp directory does not exist");
    add(cases, "merge-deletes-empty", "An empty deletes file: the store is copied, no error.")
        .given("store base").run("merge {dir}/base --out {dir}/out --deletes {dir}/gone.tsv").text("gone.tsv", "")
        .exit(0).stdout("3 records").creates("out");
  }

  private static void reindex(Map<String, HostileCommandCase> cases) {
    add(cases, "reindex-neither-dense-nor-sparse", "reindex needs --dense or --block-size.")
        .given("store base").run("reindex {dir}/base --out {dir}/out")
        .exit(2).stderr("Missing required argument (specify one of these): (--block-size=N | --dense)");
    add(cases, "reindex-both-dense-and-sparse", "Both --dense and --block-size.")
        .given("store base").run("reindex {dir}/base --out {dir}/out --dense --block-size 4k")
        .exit(2).stderr("--block-size=N, --dense are mutually exclusive (specify only one)");
    add(cases, "reindex-store-missing", "A store that does not exist.")
        .run("reindex {dir}/nope --out {dir}/out --dense").exit(2).stderr("nope: not a store directory");
    add(cases, "reindex-not-a-store", "An empty directory.")
        .given("dir empty").run("reindex {dir}/empty --out {dir}/out --dense").exit(2).stderr("is not a varve store: it has no meta file");
    add(cases, "reindex-block-size-bad", "A block size that is not a power of two.")
        .given("store base").run("reindex {dir}/base --out {dir}/out --block-size 3000").exit(2).stderr("3000");
    add(cases, "reindex-unknown-option-last", "Finding 8 for reindex.")
        .given("store base").run("reindex {dir}/base --out {dir}/out --dense --some-unknown-flag")
        .exit(2).stderr("varve reindex: unknown option --some-unknown-flag");
    add(cases, "reindex-missing-data", "A store without its data file: damaged.")
        .given("store base").given("delete base/data").run("reindex {dir}/base --out {dir}/out --dense")
        .exit(1).stderr(DAMAGED, "data", REBUILD);
    add(cases, "reindex-out-exists", "The target exists already.")
        .given("store base").given("dir out").run("reindex {dir}/base --out {dir}/out --dense")
        .exit(2).stderr("out already exists", "give another --out");
    add(cases, "reindex-no-out", "No --out.")
        .given("store base").run("reindex {dir}/base --dense").exit(2).stderr("Missing required option: '--out=OUT'");
  }

  private static void artifacts(Map<String, HostileCommandCase> cases) {
    add(cases, "pack-no-out", "pack without --out.")
        .given("store base").run("pack {dir}/base").exit(2).stderr("Missing required option: '--out=FILE.varve'");
    add(cases, "pack-out-not-varve", "An artifact named without .varve: sharded readers would not find it.")
        .given("store base").run("pack {dir}/base --out {dir}/base.zip").exit(2).stderr("an artifact's name ends in .varve");
    add(cases, "pack-out-exists", "The artifact exists already: never replaced.")
        .given("store base").given("write base.varve old").run("pack {dir}/base --out {dir}/base.varve")
        .exit(2).stderr("base.varve already exists", "give another --out");
    add(cases, "pack-not-a-store", "pack of a directory that is no store.")
        .given("dir empty").run("pack {dir}/empty --out {dir}/empty.varve").exit(2).stderr("empty is not a varve store");
    add(cases, "pack-damaged-store", "pack of a store missing a file its meta lists: damaged, nothing written.")
        .given("store base").given("delete base/index").run("pack {dir}/base --out {dir}/base.varve")
        .exit(1).stderr(DAMAGED, "index: missing, but the meta file lists it");
    add(cases, "get-artifact-truncated", "An artifact cut short: its ZIP directory is gone.")
        .given("store base").given("pack base base.varve").given("truncate base.varve 5000").run("get {dir}/base.varve a")
        .exit(1).stderr(DAMAGED, "base.varve: no ZIP end of central directory record");
    add(cases, "get-artifact-not-a-zip", "A text file named .varve.")
        .given("write text.varve hello").run("get {dir}/text.varve a").exit(1).stderr(DAMAGED, "text.varve", "too short for a ZIP file");
    add(cases, "verify-artifact-flipped", "A byte flipped in a record of an artifact (entries at 4096 each: the data's"
        + " payload at 24576): verify names the entry.")
        .given("store base").given("pack base base.varve").given("flip base.varve 24577").run("verify {dir}/base.varve")
        .exit(1).stderr(DAMAGED, "base.varve!/data: ZIP CRC-32 mismatch");
    add(cases, "stats-artifact-missing", "An artifact that does not exist.")
        .run("stats {dir}/nope.varve").exit(2).stderr("no such file or directory", "nope.varve");
  }

  private static void readers(Map<String, HostileCommandCase> cases) {
    add(cases, "get-no-arguments", "get alone.").run("get").exit(2).stderr("Missing required parameters: 'DIR', 'KEY'", "'varve get --help'");
    add(cases, "get-no-key", "A store but no key.")
        .given("store base").run("get {dir}/base").exit(2).stderr("Missing required parameter: 'KEY'");
    add(cases, "get-store-missing", "A store that does not exist.")
        .run("get {dir}/nope a").exit(2).stderr("varve get: no such file or directory: ", "nope: not a store directory");
    add(cases, "get-not-a-store", "get on a directory that is not a store: a wrong path (2), not a damaged store.")
        .given("dir empty").run("get {dir}/empty a").exit(2).stderr("empty is not a varve store: it has no meta file");
    add(cases, "get-a-file", "get on a file.")
        .run("get {dir}/in.tsv a").text("in.tsv", TSV).exit(2).stderr("in.tsv is a file, not a store directory");
    add(cases, "get-missing-index", "A store missing a file its meta lists: damaged (exit 1), with what to do.")
        .given("store base").given("delete base/index").run("get {dir}/base a")
        .exit(1).stderr("varve get: " + DAMAGED, "index: missing, but the meta file lists it", REBUILD);
    add(cases, "get-missing-offsets", "The offsets file gone.")
        .given("store base").given("delete base/offsets").run("get {dir}/base a")
        .exit(1).stderr(DAMAGED, "offsets: missing, but the meta file lists it");
    add(cases, "get-missing-data", "The data file gone.")
        .given("store base").given("delete base/data").run("get {dir}/base a").exit(1).stderr(DAMAGED, "data");
    add(cases, "get-truncated-data", "The data file cut short.")
        .given("store base").given("truncate base/data 100").run("get {dir}/base a").exit(1).stderr(DAMAGED, "data");
    add(cases, "get-garbage-meta", "A meta file replaced by text.")
        .given("store base").given("write base/meta not a meta file").run("get {dir}/base a").exit(1).stderr(DAMAGED, "meta");
    add(cases, "get-empty-meta", "An empty meta file.")
        .given("store base").given("truncate base/meta 0").run("get {dir}/base a").exit(1).stderr(DAMAGED, "meta");
    add(cases, "get-absent-key", "An absent key: exit 1, like grep, and the others still printed.")
        .given("store base").run("get {dir}/base a nope c").exit(1).stdoutIs("a\t1\nc\t333\n").stderr("varve get: nope: not found");
    add(cases, "get-empty-key", "The empty key is a key like any other: absent here, so exit 1.")
        .given("store base").run("get {dir}/base ''").exit(1).stdoutIs("").stderr("not found");
    add(cases, "get-unknown-option-last", "Finding 8 for get: an unknown option last is not a key.")
        .given("store base").run("get {dir}/base a --verbose").exit(2).stderr("varve get: unknown option --verbose");
    add(cases, "get-key-that-looks-like-an-option", "After --, a key may start with --.")
        .given("store base").run("get {dir}/base -- --verbose").exit(1).stderr("--verbose: not found");
    add(cases, "get-no-index-without-keys", "--no-index on a store without full keys: the request is at fault (2).")
        .given("store sig signature:8").run("get {dir}/sig a --no-index").exit(2).stderr("keeps no full keys");
    add(cases, "stats-two-directories", "stats reads one store.")
        .given("store base").run("stats {dir}/base {dir}/base").exit(2).stderr("unexpected argument", "'varve stats --help'");
    add(cases, "stats-json-with-value", "A switch with a value.")
        .given("store base").run("stats {dir}/base --json=yes").exit(2).stderr("Invalid value for option '--json': 'yes' is not a boolean");
    add(cases, "stats-missing-index", "stats on a store missing its index.")
        .given("store base").given("delete base/index").run("stats {dir}/base").exit(1).stderr(DAMAGED);
    add(cases, "verify-no-arguments", "verify alone.").run("verify").exit(2).stderr("Missing required parameter: 'DIR'");
    add(cases, "verify-flipped-byte", "A flipped bit in the data file: verify names the file.")
        .given("store base").given("flip base/data").run("verify {dir}/base").exit(1).stderr("varve verify: " + DAMAGED, "data", REBUILD);
    add(cases, "verify-missing-offsets", "verify on a store missing its offsets.")
        .given("store base").given("delete base/offsets").run("verify {dir}/base").exit(1).stderr(DAMAGED, "offsets");
    add(cases, "dump-limit-negative", "A negative --limit.")
        .given("store base").run("dump {dir}/base --limit -1").exit(2).stderr("--limit must be at least 0, got -1");
    add(cases, "dump-limit-not-a-number", "A --limit that is not a number.")
        .given("store base").run("dump {dir}/base --limit ten").exit(2).stderr("Invalid value for option '--limit': 'ten' is not a long");
    add(cases, "dump-limit-without-value", "--limit last, without its value.")
        .given("store base").run("dump {dir}/base --limit").exit(2).stderr("Missing required parameter for option '--limit' (N)");
  }

  private static void demos(Map<String, HostileCommandCase> cases) {
    add(cases, "demo-records-negative", "A negative record count.")
        .run("demo --records -1").exit(2).stderr("--records must be in [0, ");
    add(cases, "demo-unknown-option-last", "Finding 8 for demo.")
        .run("demo --records 10 --some-unknown-flag").exit(2).stderr("varve demo: unknown option --some-unknown-flag");
    add(cases, "demo-keep-with-value", "A switch with a value.").run("demo --keep=no").exit(2).stderr("Invalid value for option '--keep': 'no' is not a boolean");
  }
}
