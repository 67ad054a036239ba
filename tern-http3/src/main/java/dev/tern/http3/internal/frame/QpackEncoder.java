package dev.tern.http3.internal.frame;

import dev.tern.netty.internal.http2.Huffman;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Encodes field sections with QPACK's static table and literals only (RFC 9204 section 4.5; no
 * dynamic table, so the peer's decoder never blocks and Tern never reads its decoder stream): a
 * field found whole in the static table is one index, a name found there is an index and a literal
 * value, anything else two literals. A literal is Huffman-coded when that is shorter. Stateless;
 * thread-safe.
 */
public final class QpackEncoder {
  private QpackEncoder() {}

  /** Writes the field section of {@code fields} (names and values alternating) to {@code out}. */
  public static void encode(byte[][] fields, ByteBuf out) {
    out.writeByte(0); // Required Insert Count 0
    out.writeByte(0); // Delta Base 0
    for (int i = 0; i < fields.length; i += 2) {
      byte[] name = fields[i];
      byte[] value = fields[i + 1];
      String nameText = new String(name, StandardCharsets.ISO_8859_1);
      int index =
          QpackStaticTable.indexOf(nameText, new String(value, StandardCharsets.ISO_8859_1));
      if (index >= 0) {
        writeInt(out, 0xC0, 6, index); // Indexed Field Line, static
        continue;
      }
      int nameIndex = QpackStaticTable.indexOfName(nameText);
      if (nameIndex >= 0) {
        writeInt(out, 0x50, 4, nameIndex); // Literal With Name Reference, static, not N
      } else {
        writeString(out, 0x20, 3, name); // Literal With Literal Name, not N
      }
      writeString(out, 0x00, 7, value);
    }
  }

  /** A string literal: Huffman flag just above the {@code prefixBits}-bit length. */
  private static void writeString(ByteBuf out, int flags, int prefixBits, byte[] bytes) {
    int huffmanLength = Huffman.encodedLength(bytes);
    if (huffmanLength < bytes.length) {
      writeInt(out, flags | (1 << prefixBits), prefixBits, huffmanLength);
      Huffman.encode(bytes, out);
    } else {
      writeInt(out, flags, prefixBits, bytes.length);
      out.writeBytes(bytes);
    }
  }

  /**
   * An integer with a {@code prefixBits}-bit prefix, {@code flags} in the first byte's top bits.
   */
  static void writeInt(ByteBuf out, int flags, int prefixBits, long value) {
    int max = (1 << prefixBits) - 1;
    if (value < max) {
      out.writeByte(flags | (int) value);
      return;
    }
    out.writeByte(flags | max);
    value -= max;
    while (value >= 0x80) {
      out.writeByte((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.writeByte((int) value);
  }
}
