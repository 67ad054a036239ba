package dev.tern.interop.xds;

import dev.tern.Metadata;
import dev.tern.interop.testing.ClientConfigureRequest;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the xDS test client sends: which RPC types, the metadata each carries and their deadline.
 * Set by the command line ({@code --rpc}, {@code --metadata}, {@code --rpc_timeout_sec}) and
 * replaced by {@code XdsUpdateClientConfigureService.Configure}. Thread-safe: the lists and maps
 * are unmodifiable copies, and the {@link Metadata} in them is never changed once the record is
 * built ({@link #headersFor} hands out copies).
 *
 * @param types the RPC types sent at every tick, in order, each once
 * @param metadata the headers each type carries
 * @param timeoutSec every RPC's deadline, in seconds from its start
 */
record ClientConfig(List<RpcType> types, Map<RpcType, Metadata> metadata, int timeoutSec) {
  ClientConfig {
    types = List.copyOf(types);
    metadata = Map.copyOf(metadata);
  }

  /**
   * The method's name in {@code grpc.testing.TestService}: {@code EmptyCall} or {@code UnaryCall}.
   */
  static String methodName(RpcType type) {
    return type == RpcType.EMPTY_CALL ? "EmptyCall" : "UnaryCall";
  }

  /** The headers RPCs of {@code type} carry (empty if none). */
  Metadata headersFor(RpcType type) {
    Metadata headers = new Metadata();
    Metadata extra = metadata.get(type);
    if (extra != null) {
      headers.merge(extra);
    }
    return headers;
  }

  /**
   * Reads {@code --rpc}: method names ({@code UnaryCall}, {@code EmptyCall}), comma-separated.
   *
   * @throws IllegalArgumentException naming the bad name
   */
  static List<RpcType> parseTypes(String text) {
    LinkedHashSet<RpcType> types = new LinkedHashSet<>();
    for (String name : text.split(",", -1)) {
      types.add(parseType(name.strip()));
    }
    return new ArrayList<>(types);
  }

  /**
   * Reads {@code --metadata}: {@code Method:key:value} items, comma-separated (empty: none).
   *
   * @throws IllegalArgumentException naming the bad item
   */
  static Map<RpcType, Metadata> parseMetadata(String text) {
    Map<RpcType, Metadata> metadata = new EnumMap<>(RpcType.class);
    if (text.isEmpty()) {
      return metadata;
    }
    for (String item : text.split(",", -1)) {
      String[] parts = item.split(":", 3);
      if (parts.length != 3) {
        throw new IllegalArgumentException(
            "metadata item '" + item + "' is not Method:key:value (e.g. UnaryCall:rpc-behavior:x)");
      }
      add(metadata, parseType(parts[0].strip()), parts[1].strip(), parts[2]);
    }
    return metadata;
  }

  /**
   * The configuration a {@code Configure} request asks for; a zero {@code timeout_sec} keeps {@code
   * defaultTimeoutSec}.
   *
   * @throws IllegalArgumentException naming the bad field
   */
  static ClientConfig from(ClientConfigureRequest request, int defaultTimeoutSec) {
    if (request.getTimeoutSec() < 0) {
      throw new IllegalArgumentException("timeout_sec must not be negative");
    }
    List<RpcType> types = new ArrayList<>();
    for (int value : request.getTypesValueList()) {
      RpcType type = RpcType.forNumber(value);
      if (type == null) {
        throw new IllegalArgumentException("types: unknown RpcType " + value);
      }
      if (!types.contains(type)) {
        types.add(type);
      }
    }
    Map<RpcType, Metadata> metadata = new EnumMap<>(RpcType.class);
    for (ClientConfigureRequest.Metadata entry : request.getMetadataList()) {
      RpcType type = RpcType.forNumber(entry.getTypeValue());
      if (type == null) {
        throw new IllegalArgumentException(
            "metadata.type: unknown RpcType " + entry.getTypeValue());
      }
      add(metadata, type, entry.getKey(), entry.getValue());
    }
    int timeout = request.getTimeoutSec() == 0 ? defaultTimeoutSec : request.getTimeoutSec();
    return new ClientConfig(types, metadata, timeout);
  }

  private static void add(Map<RpcType, Metadata> metadata, RpcType type, String key, String value) {
    String name = key.toLowerCase(Locale.ROOT);
    if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      throw new IllegalArgumentException(
          "metadata key '" + key + "': binary headers not supported");
    }
    Metadata.Key<String> header;
    try {
      header = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("metadata key '" + key + "': " + e.getMessage(), e);
    }
    metadata.computeIfAbsent(type, t -> new Metadata()).put(header, value);
  }

  private static RpcType parseType(String name) {
    return switch (name) {
      case "UnaryCall" -> RpcType.UNARY_CALL;
      case "EmptyCall" -> RpcType.EMPTY_CALL;
      default ->
          throw new IllegalArgumentException(
              "unknown RPC '" + name + "' (known: UnaryCall, EmptyCall)");
    };
  }
}
