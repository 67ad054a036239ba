package dev.tern.xds;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process's shared {@link XdsClient}s, one per distinct {@link Bootstrap} and scope (A71): the
 * channels of the process to one target (the scope {@code xds:///svc}) with the same bootstrap
 * share one client, its ADS streams and its cache; xDS-enabled servers share the scope {@value
 * #SERVER_SCOPE}. Separate clients per target keep one target's fallback to a lower-priority
 * control plane from moving the others. A client lives while it has been acquired more often than
 * released.
 *
 * <p>Thread-safe: the map is guarded by the pool's lock, which is never held while a client calls a
 * watcher (clients call watchers in their own synchronization contexts).
 */
public final class XdsClientPool {
  private static final XdsClientPool SHARED = new XdsClientPool(XdsClient.Options.defaults());

  /** The scope of the client xDS-enabled servers share (A71's well-known key). */
  public static final String SERVER_SCOPE = "#server";

  private record Key(Bootstrap bootstrap, String scope) {}

  private final XdsClient.Options options;

  @GuardedBy("this")
  private final Map<Key, Entry> clients = new HashMap<>();

  private static final class Entry {
    final XdsClient client;
    int refs;

    Entry(XdsClient client) {
      this.client = client;
    }
  }

  XdsClientPool(XdsClient.Options options) {
    this.options = options;
  }

  /**
   * A pool of its own whose clients use {@code options} (a short does-not-exist timeout in tests,
   * say); most code wants {@link #shared()}.
   */
  public static XdsClientPool withOptions(XdsClient.Options options) {
    return new XdsClientPool(options);
  }

  /** The process-wide pool. */
  public static XdsClientPool shared() {
    return SHARED;
  }

  /**
   * The client for {@code bootstrap} with no particular scope (the empty one), made on first use;
   * pair each call with {@link #release}.
   */
  public XdsClient acquire(Bootstrap bootstrap) {
    return acquire(bootstrap, "");
  }

  /**
   * The client for {@code bootstrap} and {@code scope} (a channel's target, or {@link
   * #SERVER_SCOPE}), made on first use; pair each call with {@link #release}.
   */
  public synchronized XdsClient acquire(Bootstrap bootstrap, String scope) {
    Entry entry =
        clients.computeIfAbsent(
            new Key(bootstrap, scope), k -> new Entry(XdsClient.create(bootstrap, scope, options)));
    entry.refs++;
    return entry.client;
  }

  /** The clients alive now, for the Client Status Discovery Service ({@link CsdsService}). */
  public synchronized List<XdsClient> clients() {
    List<XdsClient> alive = new ArrayList<>();
    for (Entry entry : clients.values()) {
      alive.add(entry.client);
    }
    return alive;
  }

  /** Gives back a client from {@link #acquire}; the last release closes it. */
  public void release(XdsClient client) {
    XdsClient toClose = null;
    synchronized (this) {
      Key key = new Key(client.bootstrap(), client.scope());
      Entry entry = clients.get(key);
      if (entry == null || entry.client != client) {
        throw new IllegalArgumentException("not a client of this pool, or released already");
      }
      if (--entry.refs == 0) {
        clients.remove(key);
        toClose = client;
      }
    }
    if (toClose != null) {
      toClose.close();
    }
  }
}
