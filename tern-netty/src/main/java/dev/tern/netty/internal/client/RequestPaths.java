package dev.tern.netty.internal.client;

import dev.tern.MethodDescriptor;
import io.netty.util.AsciiString;

/**
 * The {@code :path} of each method a transport's calls use, as the {@link AsciiString} its request
 * headers carry, made once per method rather than once per call (about 130 bytes a call on
 * bench-compare's client allocation row).
 *
 * <p>A direct-mapped cache of {@value #SLOTS} slots, chosen by the path's hash: a method whose slot
 * another holds takes it over, so it never holds more than {@value #SLOTS} paths, and a miss costs
 * what every call cost before.
 *
 * <p>Thread-safe without a lock: slots are read and written racily, but each holds an immutable
 * entry whose fields are final, so a thread that sees an entry sees it whole (JLS 17.5); a thread
 * that misses another's write makes the path again.
 */
public final class RequestPaths {
  /** Enough for the methods of a few services; a power of two, for the mask. */
  private static final int SLOTS = 16;

  private final Entry[] slots = new Entry[SLOTS];

  private record Entry(String path, AsciiString ascii) {}

  /** The {@code :path} of {@code method}'s calls. */
  public AsciiString of(MethodDescriptor<?, ?> method) {
    String path = method.getPath();
    int slot = path.hashCode() & (SLOTS - 1);
    Entry entry = slots[slot];
    if (entry == null || !entry.path.equals(path)) {
      entry = new Entry(path, new AsciiString(path));
      slots[slot] = entry;
    }
    return entry.ascii;
  }
}
