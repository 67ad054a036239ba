package dev.tern;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The compressors a channel or server may use for outbound messages, looked up by the name sent in
 * {@code grpc-encoding}.
 *
 * <p>Thread-safe: registration and lookup may happen concurrently from any thread; a lookup sees
 * every registration that completed before it started.
 */
public final class CompressorRegistry {

  private static final CompressorRegistry DEFAULT = withDiscovered(CodecProviders.DISCOVERED);

  private final ConcurrentHashMap<String, Compressor> compressors = new ConcurrentHashMap<>();

  private CompressorRegistry() {}

  /**
   * Returns the process-wide registry, initially holding {@code gzip}, {@code identity} and the
   * codecs of the {@link CodecProvider}s on the class or module path (such as {@code zstd}, from
   * {@code tern-zstd}). Compressors registered on it are visible to every channel and server that
   * uses it.
   */
  public static CompressorRegistry getDefaultInstance() {
    return DEFAULT;
  }

  /** Returns a new registry with no compressors, not even {@code identity}. */
  public static CompressorRegistry newEmptyInstance() {
    return new CompressorRegistry();
  }

  /**
   * Registers {@code compressor} under its {@link Compressor#getMessageEncoding() encoding name},
   * replacing any compressor registered under the same name.
   *
   * @throws IllegalArgumentException if the encoding name is empty or not an HTTP token (for
   *     example, it contains a comma or whitespace)
   */
  public void register(Compressor compressor) {
    Objects.requireNonNull(compressor, "compressor");
    String encoding = EncodingNames.check(compressor.getMessageEncoding());
    compressors.put(encoding, compressor);
  }

  /** Returns the compressor registered under {@code name}, or {@code null} if there is none. */
  public Compressor lookupCompressor(String name) {
    Objects.requireNonNull(name, "name");
    return compressors.get(name);
  }

  /** {@code gzip} and {@code identity}, then {@code discovered} (which may replace them). */
  static CompressorRegistry withDiscovered(List<Codec> discovered) {
    CompressorRegistry registry = newEmptyInstance();
    registry.register(new Codec.Gzip());
    registry.register(Codec.Identity.NONE);
    for (Codec codec : discovered) {
      registry.register(codec);
    }
    return registry;
  }
}
