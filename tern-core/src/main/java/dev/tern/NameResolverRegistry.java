package dev.tern;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The {@link NameResolverProvider}s a channel chooses from by its target's scheme. The default
 * registry holds every provider {@link ServiceLoader} finds (Tern's {@code dns}, {@code ipv4},
 * {@code ipv6}, {@code inprocess}; {@code unix}, {@code unix-abstract} and {@code dns://server/}
 * with tern-netty) plus those {@link #register registered}; a channel builder may be given another
 * registry with {@code nameResolverRegistry(..)}.
 *
 * <p>Targets follow the gRPC naming spec: a URI whose scheme has a provider ({@code
 * dns:///example.com:443}, {@code ipv4:10.0.0.1:50051,10.0.0.2:50051}, {@code unix:/run/app.sock})
 * is used as is; anything else is taken as a host and port for the default scheme, {@code dns}
 * ({@code example.com:443} means {@code dns:///example.com:443}).
 *
 * <p>Thread-safe.
 */
public final class NameResolverRegistry {
  private static final String DEFAULT_SCHEME = "dns";
  private static NameResolverRegistry defaultRegistry;

  private final List<NameResolverProvider> providers = new ArrayList<>();

  /** An empty registry; add providers with {@link #register}. */
  public NameResolverRegistry() {}

  /** The process-wide registry, filled by {@link ServiceLoader} on first use. */
  public static synchronized NameResolverRegistry getDefaultRegistry() {
    if (defaultRegistry == null) {
      NameResolverRegistry registry = new NameResolverRegistry();
      for (NameResolverProvider provider :
          ServiceLoader.load(
              NameResolverProvider.class, NameResolverProvider.class.getClassLoader())) {
        registry.register(provider);
      }
      defaultRegistry = registry;
    }
    return defaultRegistry;
  }

  /**
   * Adds {@code provider}; it is ignored while {@link NameResolverProvider#isAvailable()} is false.
   *
   * @throws IllegalArgumentException if its scheme is empty or not lower case
   */
  public synchronized void register(NameResolverProvider provider) {
    Objects.requireNonNull(provider, "provider");
    String scheme = Objects.requireNonNull(provider.getScheme(), "provider.getScheme()");
    if (scheme.isEmpty() || !scheme.equals(scheme.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "provider scheme must be non-empty lower case, was '" + scheme + "'");
    }
    providers.add(provider);
  }

  /** Removes {@code provider} (no effect if it is not registered). */
  public synchronized void deregister(NameResolverProvider provider) {
    providers.remove(provider);
  }

  /** The scheme of targets that are plain {@code host:port}: {@code dns}. */
  public String getDefaultScheme() {
    return DEFAULT_SCHEME;
  }

  /** The available providers of {@code scheme}, highest priority first. */
  public synchronized List<NameResolverProvider> providersFor(String scheme) {
    Objects.requireNonNull(scheme, "scheme");
    String lower = scheme.toLowerCase(Locale.ROOT);
    List<NameResolverProvider> result = new ArrayList<>();
    for (NameResolverProvider provider : providers) {
      if (provider.getScheme().equals(lower) && provider.isAvailable()) {
        result.add(provider);
      }
    }
    result.sort(Comparator.comparingInt(NameResolverProvider::priority).reversed());
    return result;
  }

  /**
   * The target as the URI its resolver gets: as is when its scheme has a provider, else after
   * {@code dns:///}.
   *
   * @throws IllegalArgumentException if neither form has a provider or parses; the message says why
   */
  public URI targetUri(String target) {
    Objects.requireNonNull(target, "target");
    if (target.isEmpty()) {
      throw new IllegalArgumentException("target must not be empty");
    }
    String scheme = schemeOf(target);
    if (scheme != null && !providersFor(scheme).isEmpty()) {
      try {
        return toUri(scheme, target.substring(scheme.length() + 1));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException(
            "target '" + target + "' is not a valid " + scheme + ": URI: " + e.getMessage(), e);
      }
    }
    if (scheme != null && target.startsWith("//", scheme.length() + 1)) {
      throw new IllegalArgumentException(
          "target '"
              + target
              + "' has the scheme '"
              + scheme
              + "', which no registered name resolver handles (known: "
              + knownSchemes()
              + ")");
    }
    if (providersFor(DEFAULT_SCHEME).isEmpty()) {
      throw new IllegalArgumentException(
          "target '" + target + "' has no known scheme " + knownSchemes());
    }
    try {
      return toUri(DEFAULT_SCHEME, "///" + target);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "target '"
              + target
              + "' is neither a URI with a known scheme "
              + knownSchemes()
              + " nor a valid host:port ("
              + e.getReason()
              + ")",
          e);
    }
  }

  /** The scheme before the first ':', or null if there is none (RFC 3986 scheme syntax). */
  private static String schemeOf(String target) {
    int colon = target.indexOf(':');
    if (colon <= 0) {
      return null;
    }
    for (int i = 0; i < colon; i++) {
      char c = target.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
      if (!ok) {
        return null;
      }
    }
    return target.substring(0, colon).toLowerCase(Locale.ROOT);
  }

  /**
   * Builds the URI from its parts, quoting what a URI cannot hold literally (so {@code
   * dns:///[::1]:443} works; the resolvers read the decoded parts).
   */
  private static URI toUri(String scheme, String rest) throws URISyntaxException {
    if (rest.isEmpty()) {
      throw new URISyntaxException(scheme + ":", "nothing after the scheme");
    }
    if (!rest.startsWith("//")) {
      return new URI(scheme, rest, null);
    }
    int slash = rest.indexOf('/', 2);
    String authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    return new URI(scheme, authority.isEmpty() ? null : authority, path, null, null);
  }

  /**
   * A resolver for {@code target}, not yet started: from the first provider of its scheme that
   * accepts it.
   *
   * @throws IllegalArgumentException if the target is malformed or no provider accepts it; the
   *     message says which and why
   */
  public NameResolver newNameResolver(String target, NameResolver.Args args) {
    Objects.requireNonNull(args, "args");
    URI uri = targetUri(target);
    for (NameResolverProvider provider : providersFor(uri.getScheme())) {
      NameResolver resolver = provider.newNameResolver(uri, args);
      if (resolver != null) {
        return resolver;
      }
    }
    throw new IllegalArgumentException("no name resolver accepts target '" + target + "'");
  }

  /** The provider that would resolve {@code target}, or null if it is malformed or unknown. */
  public NameResolverProvider providerForTarget(String target) {
    URI uri;
    try {
      uri = targetUri(target);
    } catch (IllegalArgumentException e) {
      return null;
    }
    List<NameResolverProvider> candidates = providersFor(uri.getScheme());
    return candidates.isEmpty() ? null : candidates.get(0);
  }

  private synchronized String knownSchemes() {
    TreeSet<String> schemes = new TreeSet<>();
    for (NameResolverProvider provider : providers) {
      if (provider.isAvailable()) {
        schemes.add(provider.getScheme());
      }
    }
    return schemes.toString();
  }
}
