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

  private static final Map<String, io.grpc.Metadata.Key<String>> GRPC_ASCII =
      new ConcurrentHashMap<>();
  private static final Map<String, io.grpc.Metadata.Key<byte[]>> GRPC_BINARY =
      new ConcurrentHashMap<>();
  private static final Map<String, dev.tern.Metadata.Key<String>> TERN_ASCII =
      new ConcurrentHashMap<>();
  private static final Map<String, dev.tern.Metadata.Key<byte[]>> TERN_BINARY =
      new ConcurrentHashMap<>();

  private MetadataKeys() {}

  static io.grpc.Metadata.Key<String> grpcAscii(String name) {
    return cached(
        GRPC_ASCII,
        name,
        n -> io.grpc.Metadata.Key.of(n, io.grpc.Metadata.ASCII_STRING_MARSHALLER));
  }

  static io.grpc.Metadata.Key<byte[]> grpcBinary(String name) {
    return cached(
        GRPC_BINARY,
        name,
        n -> io.grpc.Metadata.Key.of(n, io.grpc.Metadata.BINARY_BYTE_MARSHALLER));
  }

  static dev.tern.Metadata.Key<String> ternAscii(String name) {
    return cached(
        TERN_ASCII,
        name,
        n -> dev.tern.Metadata.Key.of(n, dev.tern.Metadata.ASCII_STRING_MARSHALLER));
  }

  static dev.tern.Metadata.Key<byte[]> ternBinary(String name) {
    return cached(
        TERN_BINARY,
        name,
        n -> dev.tern.Metadata.Key.of(n, dev.tern.Metadata.BINARY_BYTE_MARSHALLER));
  }

  private static <K> K cached(Map<String, K> cache, String name, Function<String, K> make) {
    K key = cache.get(name);
    if (key != null) {
      return key;
    }
    key = make.apply(name);
    if (cache.size() < MAX_NAMES) {
      cache.putIfAbsent(name, key);
    }
    return key;
  }

  /** How many names each cache holds (for tests). */
  static int size() {
    return Math.max(
        Math.max(GRPC_ASCII.size(), GRPC_BINARY.size()),
        Math.max(TERN_ASCII.size(), TERN_BINARY.size()));
  }
}
