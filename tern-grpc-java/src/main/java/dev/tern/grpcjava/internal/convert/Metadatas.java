package dev.tern.grpcjava.internal.convert;

/**
 * Copies headers and trailers between {@code io.grpc.Metadata} and {@code dev.tern.Metadata}
 * through their public API only: every key of {@code keys()}, read back with an ASCII or, for
 * {@code -bin} keys, a binary marshaller, so binary values cross as their raw bytes. Stateless and
 * thread-safe; the metadata objects themselves are not, and must not be touched by another thread
 * while copied.
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
        io.grpc.Metadata.Key<byte[]> from =
            io.grpc.Metadata.Key.of(name, io.grpc.Metadata.BINARY_BYTE_MARSHALLER);
        dev.tern.Metadata.Key<byte[]> to =
            dev.tern.Metadata.Key.of(name, dev.tern.Metadata.BINARY_BYTE_MARSHALLER);
        for (byte[] value : source.getAll(from)) {
          target.put(to, value);
        }
      } else {
        io.grpc.Metadata.Key<String> from =
            io.grpc.Metadata.Key.of(name, io.grpc.Metadata.ASCII_STRING_MARSHALLER);
        dev.tern.Metadata.Key<String> to =
            dev.tern.Metadata.Key.of(name, dev.tern.Metadata.ASCII_STRING_MARSHALLER);
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
        dev.tern.Metadata.Key<byte[]> from =
            dev.tern.Metadata.Key.of(name, dev.tern.Metadata.BINARY_BYTE_MARSHALLER);
        io.grpc.Metadata.Key<byte[]> to =
            io.grpc.Metadata.Key.of(name, io.grpc.Metadata.BINARY_BYTE_MARSHALLER);
        for (byte[] value : source.getAll(from)) {
          target.put(to, value);
        }
      } else {
        dev.tern.Metadata.Key<String> from =
            dev.tern.Metadata.Key.of(name, dev.tern.Metadata.ASCII_STRING_MARSHALLER);
        io.grpc.Metadata.Key<String> to =
            io.grpc.Metadata.Key.of(name, io.grpc.Metadata.ASCII_STRING_MARSHALLER);
        for (String value : source.getAll(from)) {
          target.put(to, value);
        }
      }
    }
    return target;
  }
}
