package dev.tern.netty.internal.server;

import io.netty.util.AsciiString;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The full method names ({@code :path} without its leading slash) of a server's calls, each made
 * once: a path seen before costs a hash lookup instead of a copy of its bytes and a new string. At
 * most {@link #MAX_PATHS} paths are kept, the first ones the server sees (a few more when event
 * loops add their first at the same moment); later new paths are converted every time, so peers
 * sending endless distinct paths get no more memory, and the paths seen before stay kept.
 *
 * <p>One per server ({@link ServerOptions#methodNames}), shared by its connections rather than one
 * per connection, which held about 300 bytes of every connection that made a call. Thread-safe: the
 * connections' event loops call {@link #of} concurrently.
 */
public final class MethodNames {
  /** Enough for the methods of every service a server commonly has. */
  static final int MAX_PATHS = 1024;

  private final Map<AsciiString, String> byPath = new ConcurrentHashMap<>();

  /** The method name of {@code path}, which starts with '/' and has at least two characters. */
  public String of(CharSequence path) {
    AsciiString key = AsciiString.of(path);
    String name = byPath.get(key);
    if (name == null) {
      name = key.toString(1);
      if (byPath.size() < MAX_PATHS) {
        String kept = byPath.putIfAbsent(key, name);
        if (kept != null) {
          name = kept;
        }
      }
    }
    return name;
  }

  /** How many paths are kept. */
  int keptPaths() {
    return byPath.size();
  }
}
