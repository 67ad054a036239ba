package dev.tern.grpcjava.internal.convert;

import java.util.List;

/**
 * Copies headers and trailers between {@code io.grpc.Metadata} and {@code dev.tern.Metadata}. Both
 * hold the same serialized form (lower-case ASCII names, ASCII values as their bytes, {@code -bin}
 * values as raw bytes), so a copy hands one side's entries to the other as that form: Tern's {@link
 * dev.tern.Metadata#toSerialized()} and {@link dev.tern.Metadata#fromSerialized}, and on
 * grpc-java's side the accessor its own transports use for the same purpose, {@code
 * io.grpc.InternalMetadata} (this module is such a transport). Nothing is parsed into Strings and
 * back, and the byte arrays are shared, not copied: neither side changes an entry's bytes in place.
 * Thread-safe; the metadata objects themselves are not, and must not be touched by another thread
 * while copied.
 */
public final class Metadatas {
  private Metadatas() {}

  /** A Tern copy of {@code source}. */
  public static dev.tern.Metadata toTern(io.grpc.Metadata source) {
    if (source == null) {
      return new dev.tern.Metadata();
    }
    byte[][] entries = io.grpc.InternalMetadata.serialize(source);
    return entries == null
        ? new dev.tern.Metadata()
        : dev.tern.Metadata.fromSerialized(entries, entries.length / 2);
  }

  /** A grpc-java copy of {@code source}. */
  public static io.grpc.Metadata toGrpc(dev.tern.Metadata source) {
    if (source == null || source.headerCount() == 0) {
      return new io.grpc.Metadata();
    }
    return io.grpc.InternalMetadata.newMetadata(source.headerCount(), source.toSerialized());
  }

  /**
   * Makes {@code target} hold what {@code source} holds and nothing else (a grpc-java tracer
   * factory's changes to the headers it was shown, copied back to the attempt's own).
   */
  public static void replaceAll(dev.tern.Metadata target, io.grpc.Metadata source) {
    for (String name : List.copyOf(target.keys())) {
      if (name.endsWith(dev.tern.Metadata.BINARY_HEADER_SUFFIX)) {
        target.discardAll(dev.tern.Metadata.Key.of(name, dev.tern.Metadata.BINARY_BYTE_MARSHALLER));
      } else {
        target.discardAll(
            dev.tern.Metadata.Key.of(name, dev.tern.Metadata.ASCII_STRING_MARSHALLER));
      }
    }
    target.merge(toTern(source));
  }
}
