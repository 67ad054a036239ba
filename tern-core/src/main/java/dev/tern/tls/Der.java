package dev.tern.tls;

import java.io.ByteArrayOutputStream;

/**
 * The few DER operations key files need: reading one tag-length-value at a time and writing
 * SEQUENCE, INTEGER 0 and OCTET STRING around existing encodings. Readers are not thread-safe; the
 * static helpers are.
 */
final class Der {
  static final int SEQUENCE = 0x30;
  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int OID = 0x06;
  static final int CONTEXT_0 = 0xA0;

  private final byte[] data;
  private int position;
  private final int end;

  /** Reads the values in {@code data[from, to)}. */
  Der(byte[] data, int from, int to) {
    this.data = data;
    this.position = from;
    this.end = to;
  }

  Der(byte[] data) {
    this(data, 0, data.length);
  }

  boolean hasMore() {
    return position < end;
  }

  /** One value: its tag and where its contents lie in the array. */
  record Value(int tag, byte[] data, int contentStart, int contentEnd, int start) {
    /** A reader over the contents (for SEQUENCE and context tags). */
    Der contents() {
      return new Der(data, contentStart, contentEnd);
    }

    /** The whole encoding, tag and length included. */
    byte[] encoded() {
      byte[] out = new byte[contentEnd - start];
      System.arraycopy(data, start, out, 0, out.length);
      return out;
    }

    byte[] content() {
      byte[] out = new byte[contentEnd - contentStart];
      System.arraycopy(data, contentStart, out, 0, out.length);
      return out;
    }
  }

  /**
   * Reads the next value.
   *
   * @throws IllegalArgumentException if it does not fit or uses a length form DER forbids
   */
  Value next() {
    int start = position;
    if (end - position < 2) {
      throw new IllegalArgumentException("truncated DER value");
    }
    int tag = data[position++] & 0xff;
    if ((tag & 0x1f) == 0x1f) {
      throw new IllegalArgumentException("multi-byte DER tags are not used in key files");
    }
    int length = data[position++] & 0xff;
    if (length >= 0x80) {
      int bytes = length & 0x7f;
      if (bytes == 0 || bytes > 3 || end - position < bytes) {
        throw new IllegalArgumentException("bad DER length");
      }
      length = 0;
      for (int i = 0; i < bytes; i++) {
        length = (length << 8) | (data[position++] & 0xff);
      }
    }
    if (length > end - position) {
      throw new IllegalArgumentException("truncated DER value");
    }
    Value value = new Value(tag, data, position, position + length, start);
    position += length;
    return value;
  }

  /** Reads the next value and checks its tag. */
  Value next(int expectedTag, String what) {
    Value value = next();
    if (value.tag() != expectedTag) {
      throw new IllegalArgumentException(
          "expected " + what + " (tag 0x" + Integer.toHexString(expectedTag) + ")");
    }
    return value;
  }

  /** {@code tag}, the DER length of {@code content}, then {@code content}. */
  static byte[] wrap(int tag, byte[]... content) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] part : content) {
      body.writeBytes(part);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = body.size();
    if (length < 0x80) {
      out.write(length);
    } else if (length < 0x100) {
      out.write(0x81);
      out.write(length);
    } else if (length < 0x10000) {
      out.write(0x82);
      out.write(length >> 8);
      out.write(length);
    } else {
      out.write(0x83);
      out.write(length >> 16);
      out.write(length >> 8);
      out.write(length);
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  /** A PKCS#8 PrivateKeyInfo (version 0) for {@code algorithmIdentifier} and the inner key. */
  static byte[] privateKeyInfo(byte[] algorithmIdentifier, byte[] innerKey) {
    return wrap(
        SEQUENCE, new byte[] {INTEGER, 1, 0}, algorithmIdentifier, wrap(OCTET_STRING, innerKey));
  }
}
