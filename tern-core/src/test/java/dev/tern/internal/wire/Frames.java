package dev.tern.internal.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/** Builds length-prefixed messages by hand, independently of {@link MessageFramer}. */
final class Frames {
  private Frames() {}

  static byte[] prefix(int flags, long length) {
    return new byte[] {
      (byte) flags,
      (byte) (length >>> 24),
      (byte) (length >>> 16),
      (byte) (length >>> 8),
      (byte) length
    };
  }

  static byte[] frame(int flags, byte[] body) {
    return concat(prefix(flags, body.length), body);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  static byte[] gzip(byte[] data) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(bytes)) {
      out.write(data);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return bytes.toByteArray();
  }
}
