package io.varve.spark;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How a key or value column becomes the bytes a store holds: binary as is, string as UTF-8, long as
 * 8 bytes big-endian (so that a reader looks a long up with {@code ByteBuffer.allocate(8).putLong(k)}).
 * Any other type is refused before the job starts: a silent choice of encoding (an int as 4 bytes
 * or as a long?) would make keys no reader finds. Stateless; thread-safe.
 */
enum ColumnEncoding {
  BINARY {
    @Override
    byte[] bytes(InternalRow row, int index) {
      return row.getBinary(index);
    }

    @Override
    Object shown(InternalRow row, int index) {
      return row.getBinary(index);
    }
  },
  STRING {
    @Override
    byte[] bytes(InternalRow row, int index) {
      return row.getUTF8String(index).getBytes();
    }

    @Override
    Object shown(InternalRow row, int index) {
      return row.getUTF8String(index).toString();
    }
  },
  LONG {
    @Override
    byte[] bytes(InternalRow row, int index) {
      long value = row.getLong(index);
      byte[] bytes = new byte[Long.BYTES];
      for (int i = 0; i < Long.BYTES; i++) {
        bytes[i] = (byte) (value >>> (56 - 8 * i));
      }
      return bytes;
    }

    @Override
    Object shown(InternalRow row, int index) {
      return row.getLong(index);
    }
  };

  /**
   * The bytes of the non-null column {@code index} of {@code row}, a row of Spark's internal form
   * (read without the conversion to {@code Row}, which cost the writer much of its time): a fresh
   * array, since Spark reuses the row.
   */
  abstract byte[] bytes(InternalRow row, int index);

  /** The value of the non-null column {@code index} of {@code row}, for {@link #show}. */
  abstract Object shown(InternalRow row, int index);

  /**
   * The encoding of column {@code column} of {@code schema}, which holds the {@code role} ("key" or
   * "value").
   *
   * @throws IllegalArgumentException naming the column when it is missing or of another type
   */
  static ColumnEncoding of(StructType schema, String column, String role) {
    StructField field = Arrays.stream(schema.fields()).filter(f -> f.name().equals(column)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(
            "no " + role + " column '" + column + "': the columns are " + Arrays.toString(schema.fieldNames())));
    DataType type = field.dataType();
    if (type instanceof BinaryType) {
      return BINARY;
    }
    if (type instanceof StringType) {
      return STRING;
    }
    if (type instanceof LongType) {
      return LONG;
    }
    throw new IllegalArgumentException(role + " column '" + column + "' has type " + type.simpleString()
        + ": varve-spark writes binary, string (UTF-8) or long (8 bytes big-endian) columns; cast it (for example "
        + "col(\"" + column + "\").cast(\"" + (isIntegral(type) ? "long" : "string") + "\")) or serialize it to binary");
  }

  private static boolean isIntegral(DataType type) {
    String name = type.typeName();
    return name.equals("integer") || name.equals("short") || name.equals("byte");
  }

  /** The value shown in a message: a string or long as is, bytes in hex, at most 64 characters. */
  static String show(Object value) {
    String text;
    if (value instanceof byte[] bytes) {
      StringBuilder hex = new StringBuilder("0x");
      for (int i = 0; i < Math.min(bytes.length, 31); i++) {
        hex.append(String.format("%02x", bytes[i]));
      }
      text = hex.toString();
    } else if (value instanceof String string) {
      text = '"' + string + '"';
    } else {
      text = String.valueOf(value);
    }
    return text.length() <= 64 ? text : text.substring(0, 61) + "...";
  }
}
