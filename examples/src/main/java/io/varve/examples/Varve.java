package io.varve.examples;

import io.varve.core.format.CorruptStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The {@code varve} command. Run {@code java -jar examples/target/varve.jar help} for usage.
 *
 * <p>Exit codes: 0 success; 1 a key was not found ({@code get}) or a store is damaged; 2 bad
 * usage or input (a file that does not exist or may not be read, input that is not UTF-8), or an
 * operation the store does not support (such as {@code --no-index} on a store without full keys);
 * 3 an I/O error, or the heap ran out.
 *
 * <p>Not meant for concurrent use: {@link #main} runs one command and exits.
 */
public final class Varve {
  private Varve() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** What to do about a damaged store, after the message that names the damage. */
  static final String DAMAGED_HINT = "; rebuild the store, or restore it from a copy";

  /** Runs a command with {@code System.in} as its stdin; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, System.in, out, err);
  }

  /** Runs a command; returns the process exit code. */
  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(usage());
      return 2;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    if (args[0].equals("help") || args[0].equals("--help") || asksForHelp(rest)) {
      out.println(usage());
      return 0;
    }
    String command = "varve " + args[0];
    try {
      switch (args[0]) {
        case "demo":
          return StoreDemo.run(rest, out, err);
        case "index-demo":
          return IndexDemo.run(Options.parse(rest, IndexDemo.OPTIONS), out);
        case "build":
          return BuildCommand.run(rest, stdin, out, err);
        case "merge":
          return MergeCommand.run(rest, stdin, out, err);
        case "reindex":
          return ReindexCommand.run(rest, out);
        case "get":
          return StoreCommands.get(rest, out, err);
        case "stats":
          return StoreCommands.stats(rest, out);
        case "verify":
          return StoreCommands.verify(rest, out, err);
        case "dump":
          return StoreCommands.dump(rest, out, err);
        case "dedup":
          return DedupCommand.run(rest, out, err);
        default:
          err.println("varve: unknown command '" + args[0] + "'\n\n" + usage());
          return 2;
      }
    } catch (IllegalArgumentException e) {
      err.println(command + ": " + e.getMessage());
      return 2;
    } catch (CorruptStoreException e) {
      err.println(command + ": damaged store: " + e.getMessage() + DAMAGED_HINT);
      return 1;
    } catch (NoSuchFileException e) {
      err.println(command + ": no such file or directory: " + e.getMessage());
      return 2;
    } catch (FileAlreadyExistsException e) {
      // The library's usual reason ("the store directory already exists") says nothing more, and is
      // wrong when a file is in the way; a rarer one (it appeared during the build) is worth showing.
      String reason = e.getReason() == null || e.getReason().endsWith("already exists") ? "" : " (" + e.getReason() + ")";
      err.println(command + ": " + e.getFile() + " already exists" + reason + ": remove it, or give another --out");
      return 2;
    } catch (AccessDeniedException e) {
      // The file is there but this user may not read or write it: the arguments' fault, not the disk's.
      // A name starting with a dot is the library's staging or spill file: the directory is what matters.
      Path file = e.getFile() == null ? null : Path.of(e.getFile());
      boolean staging = file != null && file.getFileName() != null && file.getFileName().toString().startsWith(".");
      err.println(command + ": permission denied: "
          + (staging ? "this user may not write in " + file.getParent() : e.getMessage()));
      return 2;
    } catch (IOException | UncheckedIOException e) {
      err.println(command + ": I/O error: " + e.getMessage());
      return 3;
    } catch (OutOfMemoryError e) {
      // Past this point the heap is free again (the builder's buffers are unreachable): say what to change.
      err.println(command + ": out of memory (the JVM's heap is " + (Runtime.getRuntime().maxMemory() >> 20)
          + " MiB): give a smaller --memory, or a larger heap (java -Xmx...)");
      return 3;
    }
  }

  /** Whether {@code --help} is among a command's arguments (before a {@code --} that ends options). */
  private static boolean asksForHelp(String[] args) {
    for (String arg : args) {
      if (arg.equals("--")) {
        return false;
      }
      if (arg.equals("--help")) {
        return true;
      }
    }
    return false;
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: varve COMMAND [OPTIONS]",
        "",
        "commands:",
        "  build INPUT --out DIR    build a store from a TSV, CSV or JSON-lines file (- for stdin) in UTF-8:",
        "                           a byte that is not UTF-8 stops the build, naming its line",
        "         --format tsv|csv|jsonl   input format (default: from the file name, else tsv)",
        "         --key-column C    key column: 0-based index, or a name with --header / in JSON (default 0 / key)",
        "         --value-column C  value column (default 1 / value)",
        "         --header          the first TSV/CSV line names the columns",
        "         --duplicates fail|last-wins   repeated keys: fail (default) or keep the last",
        "         --memory SIZE     memory budget for sorting, e.g. 256m (default), 1g",
        "         --index blocked|ect   the index: blocked (default: about 3.5 bits/key, one 128-byte",
        "                           block read per lookup) or ect (about 2.9 bits/key, slower lookups)",
        "         --keys-per-block K   blocked index knob (default 300; 16 to 640: more is smaller, slower)",
        "         --bucket-size G --huffman-max H --skip-levels L   ECT index knobs (default 64, 64, 3;",
        "                           sparse 1024, 64, 0); they imply --index ect. A sparse index is an ECT index",
        "         --block-size N    a sparse index over N-byte blocks (e.g. 4k): under a bit per key; N must",
        "                           equal the page alignment (any power of two from 512 to 1m when it is 0)",
        "         --page-alignment N   records up to N bytes never cross an N-byte page: a power of two",
        "                           from 512 to 4096 (default), or 0 = off",
        "         --temp DIR        where sorted runs spill (default: next to --out)",
        "         --huge-page-writes   write the data file in 2 MiB pieces, so that this host's page cache",
        "                           maps it with huge pages: for a store served where it is built",
        "         --key-mode M      what records keep of their keys: full (default); signature:K, a K-bit",
        "                           signature (K from 1 to 64): an absent key is reported present, with another",
        "                           key's value, with probability 2^-K; none, for lookups of member keys only:",
        "                           what an absent key gives is undefined. signature and none keep a hashes file,",
        "                           never read by lookups, so the store can still be merged and re-indexed; they",
        "                           cannot have a sparse index (--block-size) nor be read with --no-index",
        "  merge BASE... --out DIR  a new store from old ones (oldest first: newer stores win) and a batch",
        "         --upserts FILE    records to insert or replace (formats and column options as for build)",
        "         --deletes FILE    keys to delete (only the key column is read)",
        "                           upserts are applied first, then deletes: a key in both ends deleted;",
        "                           either file may be - for stdin (not both), or left out",
        "         --format --header --key-column --value-column --memory --temp   as for build",
        "         --key-mode M      as for build (default: the bases' mode); bases with full keys may give",
        "                           signature:K or none, but keys thrown away never come back",
        "  reindex DIR --out OUT    a copy of a store with another index; the data file is shared, not rewritten",
        "         --block-size N    a sparse index over blocks of N bytes (e.g. 4096 or 4k)",
        "         --dense           a dense index (exactly one of --block-size and --dense is required)",
        "         --index --keys-per-block --bucket-size --huffman-max --skip-levels   as for build",
        "                           (default: the store's index when the kind stays, else blocked dense or",
        "                           ECT 1024, 64, 0 sparse)",
        "  get DIR KEY...           print the value of each key; exit 1 if one is absent",
        "         --no-index        (get, verify, dump) open without the index: binary search over the data",
        "  stats DIR [--json]       records, key mode, sizes, bits per key of index, offsets (or blocks), memory",
        "  verify DIR               check every checksum and find every record by its key (or kept hash)",
        "  dump DIR [--limit N]     print records in hash order as TSV; a store without full keys prints",
        "                           rank<TAB>value (the rank: the record's position in hash order)",
        "  demo   build a store from generated records, query it, verify it, print stats",
        "         --records N       number of records (default 10000000)",
        "         --memory SIZE     memory budget (default 256m)",
        "         --index --keys-per-block --bucket-size --huffman-max --skip-levels   as for build",
        "         --lookups N       member and absent lookups to time (default 1000000)",
        "         --dir DIR --keep  build into DIR and keep it (default: a temporary directory)",
        "  index-demo   build an ECT index alone over generated hashes, print bits/key and ns/lookup",
        "         --keys N          number of keys (default 10000000)",
        "         --bucket-size G   average keys per virtual bucket (default 256)",
        "         --huffman-max H   largest subtrie coded with Huffman codes (default 64)",
        "         --skip-levels L   trie levels that store skip lengths (default 3; 0 = the paper's tries)",
        "         --lookups N       member and absent lookups to time (default 1000000)",
        "         --seed S          key generator seed (default 42)",
        "  dedup [PATH...]          the dedup / WAN-optimizer run of the BufferHash paper: cut the files (every",
        "                           file under each PATH; default the jars under ~/.m2/repository) into",
        "                           chunks by content (FastCDC), look each chunk's SHA-1 up in an index and",
        "                           record it when new; print bytes seen, redundancy, chunks/s, MB/s, index RAM",
        "         --min SIZE --avg SIZE --max SIZE   chunk sizes (default 2k, 8k, 64k; avg a power of two)",
        "         --index bufferhash|hashmap   the fingerprint index: BufferHash on disk (default), or a HashMap",
        "         --log SIZE        BufferHash's log on disk (default: 64 bytes per expected chunk, so that",
        "                           nothing is evicted); when full, its oldest fingerprints are forgotten",
        "         --memory SIZE     BufferHash's RAM (default: enough for 0.01 wasted reads per lookup)",
        "         --dir DIR         keep the index in DIR (reopened by the next run); default: a temporary one",
        "         --check           also run a HashMap index and count the chunks the two disagree on",
        "  help   this text (so does --help after any command)",
        "",
        "-- ends the options: the arguments after it are positional even if they start with --",
        "exit codes: 0 success; 1 a key is absent (get) or a store is damaged; 2 bad usage or input; 3 an I/O error",
        "            or no memory left (give a smaller --memory, or java -Xmx more)");
  }
}
