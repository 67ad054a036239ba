package dev.tern.xds.internal.security;

import dev.tern.xds.Bootstrap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The process's certificate provider instances (A29): every server and channel that names the same
 * instance (the same name and config) shares one {@link FileWatcherProvider}, and so one set of
 * file watchers; the last {@link #release} stops them. Thread-safe: one lock guards the map.
 */
public final class CertificateProviders {
  private record Key(String name, Bootstrap.CertificateProvider config) {}

  private static final class Entry {
    final FileWatcherProvider provider;
    int users;

    Entry(FileWatcherProvider provider) {
      this.provider = provider;
    }
  }

  private static final Map<Key, Entry> instances = new HashMap<>();

  private CertificateProviders() {}

  /**
   * The instance {@code name} of {@code bootstrap}, shared; {@link #release} it when done.
   *
   * @throws IllegalArgumentException if the bootstrap has no such instance
   */
  public static FileWatcherProvider acquire(Bootstrap bootstrap, String name) {
    Bootstrap.CertificateProvider config = bootstrap.certificateProviders().get(name);
    if (config == null) {
      throw new IllegalArgumentException(
          "the bootstrap has no certificate provider instance \"" + name + "\"");
    }
    Key key = new Key(name, config);
    synchronized (instances) {
      Entry entry =
          instances.computeIfAbsent(
              key, k -> new Entry(new FileWatcherProvider(name, config.fileWatcher())));
      entry.users++;
      return entry.provider;
    }
  }

  /** Lets go of an instance {@link #acquire} returned. */
  public static void release(FileWatcherProvider provider) {
    Objects.requireNonNull(provider, "provider");
    synchronized (instances) {
      for (Map.Entry<Key, Entry> e : instances.entrySet()) {
        if (e.getValue().provider == provider) {
          if (--e.getValue().users == 0) {
            instances.remove(e.getKey());
            provider.close();
          }
          return;
        }
      }
    }
  }
}
