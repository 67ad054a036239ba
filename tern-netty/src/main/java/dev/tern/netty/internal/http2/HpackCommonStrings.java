package dev.tern.netty.internal.http2;

import java.util.Arrays;

/**
 * The names and values every gRPC connection inserts into its dynamic tables that RFC 7541's static
 * table lacks ({@code te: trailers}, {@code content-type: application/grpc}, {@code
 * grpc-accept-encoding}, ...), and the names the encoder inserts with their value: a decoded string
 * equal to one of them, or one the encoder inserts, is replaced by the one shared array, so each
 * connection's tables hold a reference instead of a copy (about 150 bytes of every connection that
 * made a call in the decoder's, about 200 in a server's encoder's). Only strings being inserted are
 * looked up, which happens on a connection's first calls, not on every header.
 *
 * <p>The arrays are never written to (as the static table's, which decoders hand out as well).
 * Immutable; thread-safe.
 */
final class HpackCommonStrings {
  private static final byte[][] STRINGS =
      HpackEncoder.names(
          "te",
          "trailers",
          "content-type",
          ":path",
          ":authority",
          "user-agent",
          "application/grpc",
          "application/grpc+proto",
          "grpc-accept-encoding",
          "grpc-encoding",
          "gzip",
          "identity",
          "gzip,identity",
          "identity,deflate,gzip",
          // What peers with zstd send: Tern with tern-zstd on its path, grpc-go with a zstd codec.
          "zstd",
          "gzip,identity,zstd",
          "grpc-timeout",
          "grpc-status",
          "grpc-message",
          "0");

  private HpackCommonStrings() {}

  /** The shared array equal to {@code s}, or {@code s} itself. */
  static byte[] intern(byte[] s) {
    for (byte[] common : STRINGS) {
      if (common.length == s.length && Arrays.equals(common, s)) {
        return common;
      }
    }
    return s;
  }
}
