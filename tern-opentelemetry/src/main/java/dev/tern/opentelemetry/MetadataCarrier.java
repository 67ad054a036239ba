package dev.tern.opentelemetry;

import dev.tern.Metadata;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads and writes propagation headers in {@link Metadata} for OpenTelemetry's propagators. Text
 * headers ({@code traceparent}) are stored as they are; binary ones (names ending in {@code -bin},
 * such as {@code grpc-trace-bin}) travel through the text API as base64, and {@link
 * GrpcTraceBinPropagator} skips that with {@link #setBinary}/{@link #getBinary}. Setting a header
 * replaces any earlier value, so a transparent retry that passes the same headers again still sends
 * one.
 *
 * <p>Stateless apart from a cache of header keys; thread-safe.
 */
final class MetadataCarrier implements TextMapGetter<Metadata>, TextMapSetter<Metadata> {
  static final MetadataCarrier INSTANCE = new MetadataCarrier();

  /**
   * Keys by name. Propagators use a handful of names; one that walks {@link #keys} asks for names
   * the peer chose, so the cache stops growing at {@value #MAX_CACHED} names.
   */
  private static final int MAX_CACHED = 64;

  private final Map<String, Metadata.Key<String>> textKeys = new ConcurrentHashMap<>();

  private final Map<String, Metadata.Key<byte[]>> binaryKeys = new ConcurrentHashMap<>();

  private MetadataCarrier() {}

  @Override
  public void set(Metadata carrier, String key, String value) {
    if (carrier == null || key == null || value == null) {
      return;
    }
    if (isBinary(key)) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(value);
      } catch (IllegalArgumentException e) {
        return; // not base64: nothing sensible to send
      }
      setBinary(carrier, key, bytes);
      return;
    }
    Metadata.Key<String> metadataKey = textKey(key);
    carrier.discardAll(metadataKey);
    carrier.put(metadataKey, value);
  }

  /** Sets a binary header from its bytes, replacing any earlier value. */
  void setBinary(Metadata carrier, String key, byte[] value) {
    Metadata.Key<byte[]> metadataKey = binaryKey(key);
    carrier.discardAll(metadataKey);
    carrier.put(metadataKey, value);
  }

  @Override
  public String get(Metadata carrier, String key) {
    if (carrier == null || key == null) {
      return null;
    }
    if (isBinary(key)) {
      byte[] bytes = getBinary(carrier, key);
      return bytes == null ? null : Base64.getEncoder().encodeToString(bytes);
    }
    return carrier.get(textKey(key));
  }

  /** The last value of a binary header, or null. */
  byte[] getBinary(Metadata carrier, String key) {
    return carrier.get(binaryKey(key));
  }

  @Override
  public Iterable<String> keys(Metadata carrier) {
    return carrier.keys();
  }

  private static boolean isBinary(String key) {
    return key.endsWith(Metadata.BINARY_HEADER_SUFFIX);
  }

  private Metadata.Key<String> textKey(String name) {
    Metadata.Key<String> key = textKeys.get(name);
    if (key == null) {
      key = Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER);
      if (textKeys.size() < MAX_CACHED) {
        textKeys.putIfAbsent(name, key);
      }
    }
    return key;
  }

  private Metadata.Key<byte[]> binaryKey(String name) {
    Metadata.Key<byte[]> key = binaryKeys.get(name);
    if (key == null) {
      key = Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.BINARY_BYTE_MARSHALLER);
      if (binaryKeys.size() < MAX_CACHED) {
        binaryKeys.putIfAbsent(name, key);
      }
    }
    return key;
  }
}
