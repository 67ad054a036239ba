package dev.tern.web.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds and reads envelopes in tests. */
final class Frames {
  private Frames() {}

  record Frame(int flags, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  static byte[] envelope(int flags, byte[] payload) {
    return ByteBuffer.allocate(5 + payload.length)
        .put((byte) flags)
        .putInt(payload.length)
        .put(payload)
        .array();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  static List<Frame> parse(byte[] body) {
    List<Frame> frames = new ArrayList<>();
    ByteBuffer in = ByteBuffer.wrap(body);
    while (in.hasRemaining()) {
      if (in.remaining() < 5) {
        throw new AssertionError("truncated envelope prefix: " + Arrays.toString(body));
      }
      int flags = in.get() & 0xFF;
      int length = in.getInt();
      byte[] payload = new byte[length];
      in.get(payload);
      frames.add(new Frame(flags, payload));
    }
    return frames;
  }
}
