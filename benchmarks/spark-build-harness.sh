#!/usr/bin/env bash
# Runs io.varve.benchmarks.SparkBuildHarness (the Spark writer in local mode against the single-process
# builder, same records, same run) with Spark on the class path and the JVM options Spark needs on JDK 17+.
# Build first:  ./mvnw -q -B -o package -pl benchmarks -am -DskipTests
# Then e.g.:    benchmarks/spark-build-harness.sh --records 100000000 --shards 8 --rounds 3
# HARNESS_JVM_OPTS replaces the heap options (default -Xms4g -Xmx4g); JAVA_HOME picks the JDK (17 to 22:
# on 24+ the harness only says why Spark cannot run there). Options: see SparkBuildHarness's Javadoc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="$here/target/benchmarks.jar"
spark_cp="$here/target/spark-classpath.txt"
if [ ! -f "$jar" ] || [ ! -f "$spark_cp" ]; then
  echo "missing $jar or $spark_cp: build first with ./mvnw -q -B -o package -pl benchmarks -am -DskipTests" >&2
  exit 2
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# Spark binds to loopback only (local mode needs no other address).
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
# What Spark's launcher adds on JDK 17+ (org.apache.spark.launcher.JavaModuleOptions), and Chronicle's (the checks read the stores).
opens=(-XX:+IgnoreUnrecognizedVMOptions
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED
  --enable-native-access=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)
# shellcheck disable=SC2086
exec "$java" ${HARNESS_JVM_OPTS:--Xms4g -Xmx4g} -XX:+UseParallelGC "${opens[@]}" \
  -cp "$jar:$(cat "$spark_cp")" io.varve.benchmarks.SparkBuildHarness "$@"
