package dev.tern;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * The codecs of the {@link CodecProvider}s {@link ServiceLoader} finds, for the default registries.
 * Immutable once loaded; thread-safe (class initialisation publishes it).
 */
final class CodecProviders {

  /** The discovered codecs, in the order they were found. */
  static final List<Codec> DISCOVERED =
      availableCodecs(
          ServiceLoader.load(CodecProvider.class, CodecProvider.class.getClassLoader()));

  private CodecProviders() {}

  /**
   * The codecs of the available {@code providers}, the first of each encoding name only, in order.
   *
   * @throws IllegalArgumentException if a codec's encoding name is not an HTTP token
   */
  static List<Codec> availableCodecs(Iterable<CodecProvider> providers) {
    Map<String, Codec> byName = new LinkedHashMap<>();
    for (CodecProvider provider : providers) {
      if (!provider.isAvailable()) {
        continue;
      }
      Codec codec =
          Objects.requireNonNull(provider.getCodec(), () -> provider + ".getCodec() returned null");
      byName.putIfAbsent(EncodingNames.check(codec.getMessageEncoding()), codec);
    }
    return List.copyOf(byName.values());
  }
}
