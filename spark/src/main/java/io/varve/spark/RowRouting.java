package io.varve.spark;

import io.varve.core.shard.ShardRouter;
import org.apache.spark.api.java.function.PairFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.Tuple2;

/**
 * Turns a row of (key, value) into (its shard, its {@link ShuffleRecord}) for the shuffle. Null keys,
 * and null values unless allowed as empty, fail the task with the column named. Serializable for
 * Spark; each task deserializes its own copy, which builds its router on first use; not
 * thread-safe beyond that (Spark calls it from one thread per task).
 */
final class RowRouting implements PairFunction<InternalRow, Integer, byte[]> {
  private static final long serialVersionUID = 1L;
  private static final byte[] EMPTY = new byte[0];

  private final String keyColumn;
  private final String valueColumn;
  private final ColumnEncoding keyEncoding;
  private final ColumnEncoding valueEncoding;
  private final long seed;
  private final int shards;
  private final boolean nullValuesAsEmpty;
  private transient ShardRouter router;

  RowRouting(String keyColumn, ColumnEncoding keyEncoding, String valueColumn, ColumnEncoding valueEncoding,
      VarveWriteOptions options) {
    this.keyColumn = keyColumn;
    this.valueColumn = valueColumn;
    this.keyEncoding = keyEncoding;
    this.valueEncoding = valueEncoding;
    this.seed = options.seed();
    this.shards = options.shards();
    this.nullValuesAsEmpty = options.nullValuesAsEmpty();
  }

  /** Routes a row whose column 0 is the key and column 1 the value. */
  @Override
  public Tuple2<Integer, byte[]> call(InternalRow row) {
    if (row.isNullAt(0)) {
      throw new IllegalArgumentException("null key in column '" + keyColumn + "' (the row's value column '" + valueColumn
          + "' holds " + (row.isNullAt(1) ? "null" : ColumnEncoding.show(valueEncoding.shown(row, 1))) + "): a store's keys are never null; filter or replace them first");
    }
    byte[] key = keyEncoding.bytes(row, 0);
    byte[] value;
    if (!row.isNullAt(1)) {
      value = valueEncoding.bytes(row, 1);
    } else if (nullValuesAsEmpty) {
      value = EMPTY;
    } else {
      throw new IllegalArgumentException("null value in column '" + valueColumn + "' for key " + ColumnEncoding.show(keyEncoding.shown(row, 0))
          + " (column '" + keyColumn + "'): store it as empty with VarveWriteOptions.nullValuesAsEmpty(true), or filter it");
    }
    if (router == null) {
      router = ShardRouter.of(seed, shards);
    }
    return new Tuple2<>(router.shardOf(key), ShuffleRecord.of(key, value));
  }
}
