package dev.tern.netty.shaded;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test during which either Netty, the relocated one in tern-netty-shaded or grpc-java's
 * Netty 4.1, reported a leaked buffer. Each Netty has its own leak detector, level and listener.
 *
 * <p>Thread-safe: the reports, written by whichever thread a detector reports on, are guarded by
 * their list.
 */
final class BothNettyLeakWatch implements BeforeEachCallback, AfterEachCallback {
  /** Leak reports since the last test started. Guarded by itself. */
  private static final List<String> REPORTS = new ArrayList<>();

  static {
    dev.tern.shaded.io.netty.buffer.ByteBufUtil.setLeakListener(
        (type, records) -> report("tern-netty-shaded's Netty: " + type, records));
    io.netty.buffer.ByteBufUtil.setLeakListener(
        (type, records) -> report("Netty 4.1: " + type, records));
  }

  private static void report(String what, String records) {
    synchronized (REPORTS) {
      REPORTS.add(what + " leaked; last accesses:\n" + records);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    synchronized (REPORTS) {
      REPORTS.clear();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    // A detector reports the collected, unreleased buffers it finds when it tracks a new one.
    for (int round = 0; round < 3; round++) {
      System.gc();
      for (int i = 0; i < 8; i++) {
        dev.tern.shaded.io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(16).release();
        dev.tern.shaded.io.netty.buffer.Unpooled.buffer(16).release();
        io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(16).release();
        io.netty.buffer.Unpooled.buffer(16).release();
      }
    }
    List<String> found;
    synchronized (REPORTS) {
      found = List.copyOf(REPORTS);
    }
    if (!found.isEmpty()) {
      throw new AssertionError(
          found.size()
              + " leaked buffer(s) during "
              + context.getDisplayName()
              + ":\n"
              + String.join("\n----\n", found));
    }
  }
}
