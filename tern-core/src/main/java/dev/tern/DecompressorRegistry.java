package dev.tern;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The decompressors a channel or server can apply to inbound messages, and which of them it
 * advertises to peers in {@code grpc-accept-encoding}.
 *
 * <p>Immutable; thread-safe. {@link #with} returns a new registry. The advertised header value is
 * computed once, at construction, so transports can send {@link #getRawAdvertisedMessageEncodings}
 * on every call without encoding it again.
 */
public final class DecompressorRegistry {

  private static final DecompressorRegistry EMPTY = new DecompressorRegistry(Map.of());

  private static final DecompressorRegistry DEFAULT = withDiscovered(CodecProviders.DISCOVERED);

  /** Registered decompressors by encoding name, in registration order. */
  private final Map<String, Registration> registrations;

  private final Set<String> knownEncodings;
  private final Set<String> advertisedEncodings;
  private final String advertisedHeader;
  private final byte[] rawAdvertisedHeader;

  private DecompressorRegistry(Map<String, Registration> registrations) {
    this.registrations = registrations;
    this.knownEncodings = Collections.unmodifiableSet(new LinkedHashSet<>(registrations.keySet()));
    Set<String> advertised = new LinkedHashSet<>();
    for (Registration registration : registrations.values()) {
      if (registration.advertised) {
        advertised.add(registration.decompressor.getMessageEncoding());
      }
    }
    this.advertisedEncodings = Collections.unmodifiableSet(advertised);
    this.advertisedHeader = String.join(",", advertised);
    this.rawAdvertisedHeader = advertisedHeader.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Returns the default registry: {@code gzip} and {@code identity}, both advertised, so {@link
   * #getAdvertisedMessageEncodingsHeader()} is {@code "gzip,identity"}; then, also advertised, the
   * codecs of the {@link CodecProvider}s on the class or module path ({@code "gzip,identity,zstd"}
   * with {@code tern-zstd}).
   */
  public static DecompressorRegistry getDefaultInstance() {
    return DEFAULT;
  }

  /** {@code gzip} and {@code identity}, then {@code discovered}, all advertised. */
  static DecompressorRegistry withDiscovered(List<Codec> discovered) {
    DecompressorRegistry registry =
        EMPTY.with(new Codec.Gzip(), true).with(Codec.Identity.NONE, true);
    for (Codec codec : discovered) {
      registry = registry.with(codec, true);
    }
    return registry;
  }

  /** Returns a registry with no decompressors, not even {@code identity}. */
  public static DecompressorRegistry emptyInstance() {
    return EMPTY;
  }

  /**
   * Returns a new registry holding everything in this one plus {@code decompressor}, which replaces
   * any decompressor with the same encoding name (keeping that name's place in the advertised
   * order). New names are appended to the order.
   *
   * @param advertised whether peers are told, through {@code grpc-accept-encoding}, that this
   *     encoding is accepted
   * @throws IllegalArgumentException if the encoding name is empty or not an HTTP token (for
   *     example, it contains a comma or whitespace)
   */
  public DecompressorRegistry with(Decompressor decompressor, boolean advertised) {
    Objects.requireNonNull(decompressor, "decompressor");
    String encoding = EncodingNames.check(decompressor.getMessageEncoding());
    Map<String, Registration> copy = new LinkedHashMap<>(registrations);
    copy.put(encoding, new Registration(decompressor, advertised));
    return new DecompressorRegistry(Collections.unmodifiableMap(copy));
  }

  /** Returns the decompressor for {@code encoding}, or {@code null} if there is none. */
  public Decompressor lookupDecompressor(String encoding) {
    Objects.requireNonNull(encoding, "encoding");
    Registration registration = registrations.get(encoding);
    return registration == null ? null : registration.decompressor;
  }

  /** Returns the names of all registered encodings, advertised or not; unmodifiable. */
  public Set<String> getKnownMessageEncodings() {
    return knownEncodings;
  }

  /** Returns the names of the advertised encodings in registration order; unmodifiable. */
  public Set<String> getAdvertisedMessageEncodings() {
    return advertisedEncodings;
  }

  /**
   * Returns the {@code grpc-accept-encoding} value: the advertised names joined by commas, as
   * US-ASCII bytes (empty if nothing is advertised). The same array is returned every time, so
   * callers must not modify it.
   */
  public byte[] getRawAdvertisedMessageEncodings() {
    return rawAdvertisedHeader;
  }

  /** Returns {@link #getRawAdvertisedMessageEncodings()} as a string. */
  public String getAdvertisedMessageEncodingsHeader() {
    return advertisedHeader;
  }

  private static final class Registration {
    final Decompressor decompressor;
    final boolean advertised;

    Registration(Decompressor decompressor, boolean advertised) {
      this.decompressor = decompressor;
      this.advertised = advertised;
    }
  }
}
