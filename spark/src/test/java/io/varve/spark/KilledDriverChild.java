package io.varve.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import org.apache.spark.sql.SparkSession;

/**
 * The driver {@link KilledDriverTest} kills: writes {@code args[1]} rows ({@code "key-" + i} to
 * {@code "value-" + i}) into 8 shards at {@code args[0]}, saying "writing" before and "published"
 * after.
 */
final class KilledDriverChild {
  private KilledDriverChild() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkTestSessions.start("local[2]");
    long rows = Long.parseLong(args[1]);
    System.out.println("writing");
    System.out.flush();
    VarveSpark.write(spark.range(0, rows, 1, 4).select(
            concat(lit("key-"), col("id").cast("string")).as("k"), concat(lit("value-"), col("id").cast("string")).as("v")),
        "k", "v", args[0], VarveWriteOptions.builder(8).build());
    System.out.println("published");
    System.out.flush();
    spark.stop();
  }
}
