package io.varve.cli;

import static io.varve.cli.HostileCommandCases.DAMAGED;
import static io.varve.cli.HostileCommandCases.REBUILD;

import java.util.Map;

/**
 * The hostile command cases of sharded stores, part of {@link HostileCommandCases}: a sharded root
 * missing a shard or holding another one, a damaged manifest, shards without a manifest (a build
 * that did not finish), options that a sharded store does not take, and the answers of a sound one.
 *
 * <p>{@code given: sharded users 2} builds a sharded store of the usual three records ({@code a ->
 * 1}, {@code b -> 22}, {@code c -> 333}) in 2 shards with routing seed 0: {@code b} and {@code c}
 * go to shard 0, {@code a} to shard 1; {@code given: sharded users 2 artifacts} writes the shards
 * as {@code .varve} files.
 */
final class HostileShardedCases {
  private HostileShardedCases() {}

  static void add(Map<String, HostileCommandCase> cases) {
    sound(cases);
    damaged(cases);
    unfinished(cases);
    misused(cases);
  }

  private static HostileCommandCase add(Map<String, HostileCommandCase> cases, String name, String why) {
    return HostileCommandCases.add(cases, name, why);
  }

  private static void sound(Map<String, HostileCommandCase> cases) {
    add(cases, "get-sharded-routes-each-key", "A sharded root reads as one store: each key from its shard, an absent one exit 1.")
        .given("sharded users 2").run("get {dir}/users a nope b c").exit(1).stdoutIs("a\t1\nb\t22\nc\t333\n")
        .stderr("varve get: nope: not found");
    add(cases, "get-sharded-artifact-shards", "Shards written as .varve files are read in place, as directories are.")
        .given("sharded users 2 artifacts").run("get {dir}/users --values c b a").exit(0).stdoutIs("333\n22\n1\n");
    add(cases, "verify-sharded", "verify of a sound sharded store: every shard, in one line.")
        .given("sharded users 2").run("verify {dir}/users").exit(0).stdout("ok: ", "users, 2 shards, 3 records, every checksum matches");
    add(cases, "dump-sharded", "dump of a sharded store: shard 0's records, then shard 1's.")
        .given("sharded users 2 artifacts").run("dump {dir}/users").exit(0).stdoutIs("b\t22\nc\t333\na\t1\n");
  }

  private static void damaged(Map<String, HostileCommandCase> cases) {
    add(cases, "get-sharded-missing-shard-artifact", "A shard's .varve file gone: damaged (exit 1), the shard named.")
        .given("sharded users 2 artifacts").given("delete users/shard-00001.varve").run("get {dir}/users a")
        .exit(1).stderr("varve get: " + DAMAGED, "shard 1 of 2 (shard-00001) is missing", REBUILD);
    add(cases, "stats-sharded-missing-shard-directory", "A shard's directory gone: damaged, the shard named.")
        .given("sharded users 2").given("delete-tree users/shard-00000").run("stats {dir}/users")
        .exit(1).stderr("varve stats: " + DAMAGED, "shard 0 of 2 (shard-00000) is missing");
    add(cases, "verify-sharded-shard-missing-its-meta", "A shard directory without its meta file is no complete store.")
        .given("sharded users 2").given("delete users/shard-00001/meta").run("verify {dir}/users")
        .exit(1).stderr(DAMAGED, "shard 1 of 2 (shard-00001) is not a complete store");
    add(cases, "get-sharded-swapped-shards", "Two shards swapped: each is checked against its manifest entry.")
        .given("sharded users 2").given("move users/shard-00000 users/swap").given("move users/shard-00001 users/shard-00000")
        .given("move users/swap users/shard-00001").run("get {dir}/users a")
        .exit(1).stderr(DAMAGED, "shard 0 of 2 (shard-00000)", "the manifest says");
    add(cases, "verify-sharded-flipped-shard-data", "A flipped bit in a shard's records: verify names the shard and the file.")
        .given("sharded users 2").given("flip users/shard-00000/data").run("verify {dir}/users")
        .exit(1).stderr("varve verify: " + DAMAGED, "shard 0 (shard-00000) is damaged", "data", REBUILD);
    add(cases, "verify-sharded-flipped-artifact-shard", "A flipped byte in a shard artifact's records (a paged shard: marker,"
        + " meta, pages and data entries at 4096 each, the data's payload at 20480): verify names the shard and the entry.")
        .given("sharded users 2 artifacts").given("flip users/shard-00000.varve 20481").run("verify {dir}/users")
        .exit(1).stderr(DAMAGED, "shard 0 (shard-00000) is damaged", "shard-00000.varve!/data: ZIP CRC-32 mismatch");
    add(cases, "stats-sharded-flipped-manifest", "A flipped bit in the _MANIFEST: its checksum fails, the file is named.")
        .given("sharded users 2").given("flip users/_MANIFEST").run("stats {dir}/users")
        .exit(1).stderr("varve stats: " + DAMAGED, "_MANIFEST", REBUILD);
    add(cases, "verify-sharded-empty-manifest", "An empty _MANIFEST.")
        .given("sharded users 2").given("truncate users/_MANIFEST 0").run("verify {dir}/users").exit(1).stderr(DAMAGED, "_MANIFEST");
    add(cases, "get-sharded-manifest-of-text", "A _MANIFEST replaced by text.")
        .given("sharded users 2").given("write users/_MANIFEST shards: 2").run("get {dir}/users a")
        .exit(1).stderr(DAMAGED, "_MANIFEST");
  }

  private static void unfinished(Map<String, HostileCommandCase> cases) {
    add(cases, "get-sharded-without-manifest", "Shards but no _MANIFEST: a build that did not finish, not a store yet (2, as"
        + " a path that is no store), and said so.")
        .given("sharded users 2").given("delete users/_MANIFEST").run("get {dir}/users a")
        .exit(2).stderr("varve get: ", "users holds shard-00000, shard-00001 but no _MANIFEST: a sharded build that did not finish",
            "copy it again whole")
        .stderrNot(DAMAGED);
    add(cases, "verify-sharded-artifacts-without-manifest", "The same with shards as .varve files.")
        .given("sharded users 2 artifacts").given("delete users/_MANIFEST").run("verify {dir}/users")
        .exit(2).stderr("users holds shard-00000.varve, shard-00001.varve but no _MANIFEST");
    add(cases, "stats-spark-job-not-finished", "A Spark job's output while it runs (or after its driver died): _temporary alone.")
        .given("dir job/_temporary/0").run("stats {dir}/job").exit(2).stderr("job holds _temporary but no _MANIFEST");
  }

  private static void misused(Map<String, HostileCommandCase> cases) {
    add(cases, "get-sharded-no-index", "--no-index opens one store: a shard can be read so, the sharded root cannot.")
        .given("sharded users 2").run("get {dir}/users a --no-index")
        .exit(2).stderr("--no-index opens one store, and ", "users is a sharded store: give one of its shards instead, such as ",
            "users/shard-00000");
    add(cases, "dump-sharded-no-index", "The same for dump.")
        .given("sharded users 2").run("dump {dir}/users --no-index").exit(2).stderr("--no-index opens one store");
    add(cases, "stats-shards-of-one-store", "--shards asks for a sharded store's shards.")
        .given("store base").run("stats {dir}/base --shards").exit(2).stderr("--shards is for a sharded store");
    add(cases, "pack-sharded-root", "pack writes one store as one file: a sharded root is refused, naming a shard to pack.")
        .given("sharded users 2").run("pack {dir}/users --out {dir}/users.varve")
        .exit(2).stderr("users is a sharded store (it has a _MANIFEST), not one store: give one of its shards, such as ");
    add(cases, "merge-sharded-base", "merge folds a batch into single stores.")
        .given("sharded users 2").run("merge {dir}/users --out {dir}/out --upserts {dir}/up.tsv").text("up.tsv", "d\t4\n")
        .exit(2).stderr("users is a sharded store");
  }
}
