package dev.tern.grpcjava.internal.convert;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The metadata keys {@link Metadatas} copies through, made once per header name instead of once per
 * header of every call: both libraries' {@code Key.of} validate and lower-case the name and encode
 * it, which was a large part of what the bridge allocated per call beyond Tern's own calls. Names
 * come from peers, so each cache stops growing at {@link #MAX_NAMES} names; later names get a new
 * key each time, as before. Thread-safe.
 */
final class MetadataKeys {
  /** Enough for the headers of any real service; bounds what a peer sending new names can hold. */
  static final int MAX_NAMES = 512;

  private static final Cache<io.grpc.Metadata.Key<String>> GRPC_ASCII =
      new Cache<>(n -> io.grpc.Metadata.Key.of(n, io.grpc.Metadata.ASCII_STRING_MARSHALLER));
  private static final Cache<io.grpc.Metadata.Key<byte[]>> GRPC_BINARY =
      new Cache<>(n -> io.grpc.Metadata.Key.of(n, io.grpc.Metadata.BINARY_BYTE_MARSHALLER));
  private static final Cache<dev.tern.Metadata.Key<String>> TERN_ASCII =
      new Cache<>(n -> dev.tern.Metadata.Key.of(n, dev.tern.Metadata.ASCII_STRING_MARSHALLER));
  private static final Cache<dev.tern.Metadata.Key<byte[]>> TERN_BINARY =
      new Cache<>(n -> dev.tern.Metadata.Key.of(n, dev.tern.Metadata.BINARY_BYTE_MARSHALLER));

  private MetadataKeys() {}

  static io.grpc.Metadata.Key<String> grpcAscii(String name) {
    return GRPC_ASCII.get(name);
  }

  static io.grpc.Metadata.Key<byte[]> grpcBinary(String name) {
    return GRPC_BINARY.get(name);
  }

  static dev.tern.Metadata.Key<String> ternAscii(String name) {
    return TERN_ASCII.get(name);
  }

  static dev.tern.Metadata.Key<byte[]> ternBinary(String name) {
    return TERN_BINARY.get(name);
  }

  /** How many names the largest cache holds (for tests). */
  static int size() {
    return Math.max(
        Math.max(GRPC_ASCII.keys.size(), GRPC_BINARY.keys.size()),
        Math.max(TERN_ASCII.keys.size(), TERN_BINARY.keys.size()));
  }

  /** One library's keys of one kind, by name, at most {@link #MAX_NAMES} of them. */
  private static final class Cache<K> {
    final Map<String, K> keys = new ConcurrentHashMap<>();
    private final Function<String, K> make;

    Cache(Function<String, K> make) {
      this.make = make;
    }

    K get(String name) {
      K key = keys.get(name);
      if (key != null) {
        return key;
      }
      key = make.apply(name);
      if (keys.size() < MAX_NAMES) {
        keys.putIfAbsent(name, key);
      }
      return key;
    }
  }
}
