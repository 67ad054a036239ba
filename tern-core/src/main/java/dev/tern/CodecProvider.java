package dev.tern;

/**
 * Supplies a message encoding beyond the built-in ones (such as {@code zstd}, from the {@code
 * tern-zstd} artifact) to the default registries: {@link CompressorRegistry#getDefaultInstance()}
 * registers its codec, and {@link DecompressorRegistry#getDefaultInstance()} adds it, advertised in
 * {@code grpc-accept-encoding}. So adding the provider's jar is all it takes: servers then accept
 * the encoding and say so, and clients may ask for it with {@link CallOptions#withCompression}.
 *
 * <p>Providers are found through {@link java.util.ServiceLoader} (listed in {@code
 * META-INF/services/dev.tern.CodecProvider}, or {@code provides dev.tern.CodecProvider} in a
 * module), once, when either default registry is first used. A provider's codec is added after the
 * built-in {@code gzip} and {@code identity}, replacing a built-in of the same name; of two
 * available providers of one name, the one found first is used. Registries built by the application
 * ({@link CompressorRegistry#newEmptyInstance()}, {@link DecompressorRegistry#emptyInstance()})
 * hold only what it puts there.
 *
 * <p>Implementations must be thread-safe, and so must their codecs. They are called while the
 * default registries are being built, so they must not use those registries.
 */
public abstract class CodecProvider {
  /** For subclasses. */
  protected CodecProvider() {}

  /**
   * Whether the codec can work here (its native library loads, say). Unavailable providers are
   * skipped, so their encoding is neither used nor advertised.
   */
  public abstract boolean isAvailable();

  /** The codec, asked for once, after {@link #isAvailable()} returned true. */
  public abstract Codec getCodec();
}
