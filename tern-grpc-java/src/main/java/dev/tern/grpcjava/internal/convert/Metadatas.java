package dev.tern.grpcjava.internal.convert;

import java.util.List;

/**
 * Copies headers and trailers between {@code io.grpc.Metadata} and {@code dev.tern.Metadata}
 * through their public API only: every key of {@code keys()}, read back with an ASCII or, for
 * {@code -bin} keys, a binary marshaller, so binary values cross as their raw bytes (the keys made
 * once per name, {@link MetadataKeys}). Thread-safe; the metadata objects themselves are not, and
 * must not be touched by another thread while copied.
 */
public final class Metadatas {
  private Metadatas() {}

  /** A Tern copy of {@code source}. */
  public static dev.tern.Metadata toTern(io.grpc.Metadata source) {
    dev.tern.Metadata target = new dev.tern.Metadata();
    if (source == null) {
      return target;
    }
    for (String name : source.keys()) {
      if (name.endsWith(io.grpc.Metadata.BINARY_HEADER_SUFFIX)) {
        io.grpc.Metadata.Key<byte[]> from = MetadataKeys.grpcBinary(name);
        dev.tern.Metadata.Key<byte[]> to = MetadataKeys.ternBinary(name);
        for (byte[] value : source.getAll(from)) {
          target.put(to, value);
        }
      } else {
        io.grpc.Metadata.Key<String> from = MetadataKeys.grpcAscii(name);
        dev.tern.Metadata.Key<String> to = MetadataKeys.ternAscii(name);
        for (String value : source.getAll(from)) {
          target.put(to, value);
        }
      }
    }
    return target;
  }

  /** A grpc-java copy of {@code source}. */
  public static io.grpc.Metadata toGrpc(dev.tern.Metadata source) {
    io.grpc.Metadata target = new io.grpc.Metadata();
    if (source == null) {
      return target;
    }
    for (String name : source.keys()) {
      if (name.endsWith(dev.tern.Metadata.BINARY_HEADER_SUFFIX)) {
        dev.tern.Metadata.Key<byte[]> from = MetadataKeys.ternBinary(name);
        io.grpc.Metadata.Key<byte[]> to = MetadataKeys.grpcBinary(name);
        for (byte[] value : source.getAll(from)) {
          target.put(to, value);
        }
      } else {
        dev.tern.Metadata.Key<String> from = MetadataKeys.ternAscii(name);
        io.grpc.Metadata.Key<String> to = MetadataKeys.grpcAscii(name);
        for (String value : source.getAll(from)) {
          target.put(to, value);
        }
      }
    }
    return target;
  }

  /**
   * Makes {@code target} hold what {@code source} holds and nothing else (a grpc-java tracer
   * factory's changes to the headers it was shown, copied back to the attempt's own).
   */
  public static void replaceAll(dev.tern.Metadata target, io.grpc.Metadata source) {
    for (String name : List.copyOf(target.keys())) {
      if (name.endsWith(dev.tern.Metadata.BINARY_HEADER_SUFFIX)) {
        target.discardAll(MetadataKeys.ternBinary(name));
      } else {
        target.discardAll(MetadataKeys.ternAscii(name));
      }
    }
    target.merge(toTern(source));
  }
}
