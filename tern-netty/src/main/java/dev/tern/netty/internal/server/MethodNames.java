package dev.tern.netty.internal.server;

import io.netty.util.AsciiString;
import java.util.HashMap;
import java.util.Map;

/**
 * The full method names ({@code :path} without its leading slash) of a connection's calls, each
 * made once: a path seen before costs a hash lookup instead of a copy of its bytes and a new
 * string. At most {@link #MAX_PATHS} paths are kept, the first ones seen; later new paths are
 * converted every time, so a peer sending endless distinct paths gets no more memory.
 *
 * <p>One per connection; event loop only.
 */
final class MethodNames {
  static final int MAX_PATHS = 64;

  private final Map<AsciiString, String> byPath = new HashMap<>();

  /** The method name of {@code path}, which starts with '/' and has at least two characters. */
  String of(CharSequence path) {
    AsciiString key = AsciiString.of(path);
    String name = byPath.get(key);
    if (name == null) {
      name = key.toString(1);
      if (byPath.size() < MAX_PATHS) {
        byPath.put(key, name);
      }
    }
    return name;
  }

  /** How many paths are kept. */
  int keptPaths() {
    return byPath.size();
  }
}
