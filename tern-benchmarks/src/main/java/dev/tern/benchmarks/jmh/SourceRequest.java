package dev.tern.benchmarks.jmh;

import java.nio.ByteBuffer;

/**
 * What the client of a server-to-client {@link OneWayStream} asks for: {@code count} more messages
 * of {@code size} bytes each. Eight bytes on the wire (two big-endian ints), so the request stream
 * costs next to nothing beside the messages it asks for. Also the encoding of the one response of a
 * client-to-server stream, the count of messages its server received.
 */
record SourceRequest(int count, int size) {
  static final int LENGTH = 8;

  byte[] encode() {
    return ByteBuffer.allocate(LENGTH).putInt(count).putInt(size).array();
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not a request
   */
  static SourceRequest decode(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException("a source request is 8 bytes, not " + bytes.length);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new SourceRequest(buffer.getInt(), buffer.getInt());
  }

  /** The eight bytes of a count, as the server of a client-to-server stream answers with it. */
  static byte[] encodeCount(long count) {
    return ByteBuffer.allocate(Long.BYTES).putLong(count).array();
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not a count
   */
  static long decodeCount(byte[] bytes) {
    if (bytes.length != Long.BYTES) {
      throw new IllegalArgumentException("a count is 8 bytes, not " + bytes.length);
    }
    return ByteBuffer.wrap(bytes).getLong();
  }
}
