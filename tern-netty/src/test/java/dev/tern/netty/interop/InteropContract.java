package dev.tern.netty.interop;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * What the two interop echo services (one written on grpc-java, {@link GrpcJavaEchoService}, one on
 * Tern, {@link TernEchoService}) have in common: names and behaviour. All messages are raw bytes.
 *
 * <ul>
 *   <li>{@code Unary}: answers with the request; or, if the request header {@value #REPLY_SIZE} is
 *       set, with that many zero bytes.
 *   <li>{@code ServerStreaming}: the request is a count N in decimal; answers "0" .. "N-1".
 *   <li>{@code ClientStreaming}: answers with the requests concatenated.
 *   <li>{@code Bidi}: answers each request with itself as it arrives.
 *   <li>{@code Fail}: ends with the code in request header {@value #FAIL_CODE} and the request (as
 *       UTF-8) as description, Trailers-Only; unless {@value #FAIL_AFTER_HEADERS} is set, in which
 *       case it sends headers and one message (the request) first.
 *   <li>{@code Hang}: never answers; reports the deadline it sees and its cancellation.
 *   <li>{@code Bulk}: the request {@code "count:size"} asks for {@code count} messages of {@code
 *       size} bytes ({@link #pattern}), sent only while the call is ready; reports each time it is
 *       held back.
 *   <li>{@code Count}: reads the requests one at a time and answers {@code "<total bytes> intact"}
 *       (or {@code corrupt}, if one was not {@link #pattern} bytes).
 * </ul>
 *
 * <p>Every method sends request headers named {@value #ECHO_INITIAL_PREFIX}* back in its response
 * headers (when it sends any) and {@value #ECHO_TRAILING_PREFIX}* in its trailers; and compresses
 * its responses with gzip if the request header {@value #REPLY_GZIP} is set.
 */
final class InteropContract {
  static final String SERVICE = "interop.Echo";
  static final String UNARY = SERVICE + "/Unary";
  static final String SERVER_STREAMING = SERVICE + "/ServerStreaming";
  static final String CLIENT_STREAMING = SERVICE + "/ClientStreaming";
  static final String BIDI = SERVICE + "/Bidi";
  static final String FAIL = SERVICE + "/Fail";
  static final String HANG = SERVICE + "/Hang";
  static final String BULK = SERVICE + "/Bulk";
  static final String COUNT = SERVICE + "/Count";

  static final String ECHO_INITIAL_PREFIX = "echo-initial-";
  static final String ECHO_TRAILING_PREFIX = "echo-trailing-";
  static final String REPLY_SIZE = "reply-size";
  static final String REPLY_GZIP = "reply-gzip";
  static final String FAIL_CODE = "fail-code";
  static final String FAIL_AFTER_HEADERS = "fail-after-headers";

  /** The default limit on a received message, in both implementations. */
  static final int DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024;

  /**
   * A status description that only survives exact percent-encoding: non-ASCII (BMP and beyond),
   * control characters, {@code %} alone and {@code %} looking like an escape.
   */
  static final String TRICKY_DESCRIPTION =
      "100% sure: \t\n ünïcödé ☺ \uD83D\uDE08 %41 is not A, %zz is not an escape %";

  private InteropContract() {}

  static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }

  static String utf8(byte[] bytes) {
    return new String(bytes, UTF_8);
  }

  /** All 256 byte values, in order. */
  static byte[] allByteValues() {
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
  }

  /** {@code length} bytes of a fixed, compressible pattern. */
  static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) ('a' + i % 23);
    }
    return bytes;
  }
}
