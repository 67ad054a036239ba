package dev.tern.netty.hostile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty's leak detector reports a {@link ByteBuf} that was garbage-collected
 * without being released. Register it BEFORE {@code TernCleanupExtension}, so that its {@code
 * afterEach} runs after every server and channel has been shut down:
 *
 * <pre>{@code
 * @RegisterExtension final LeakWatch leaks = new LeakWatch();
 * @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
 * }</pre>
 *
 * <p>The detector (at the {@code paranoid} level the build sets) reports a leak only once the
 * leaked buffer has been collected and another buffer is allocated, so after each test this asks
 * for a collection and allocates a few buffers to make pending reports surface. A leak that the
 * collector does not find in time goes unnoticed here (it still shows up as a {@code LEAK:} log
 * line in a later test), so this never fails a test that leaked nothing.
 *
 * <p>Thread-safe: Netty calls the listener from whichever thread allocates; the record of reports
 * is guarded by {@link #REPORTS}.
 */
public final class LeakWatch implements BeforeEachCallback, AfterEachCallback {
  /** Leak reports since the last test started. Guarded by itself. */
  private static final List<String> REPORTS = new ArrayList<>();

  static {
    ByteBufUtil.setLeakListener(
        (resourceType, records) -> {
          synchronized (REPORTS) {
            REPORTS.add(resourceType + " leaked; last accesses:\n" + records);
          }
        });
  }

  /** A watch; all instances share the one process-wide listener. */
  public LeakWatch() {}

  @Override
  public void beforeEach(ExtensionContext context) {
    synchronized (REPORTS) {
      REPORTS.clear();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<String> found = collectReports();
    if (!found.isEmpty()) {
      throw new AssertionError(
          "Netty reported "
              + found.size()
              + " leaked buffer(s) during "
              + context.getDisplayName()
              + ":\n"
              + String.join("\n----\n", found));
    }
  }

  /** Makes pending leak reports surface, and returns them. */
  private static List<String> collectReports() {
    for (int round = 0; round < 3; round++) {
      System.gc();
      // Each tracked allocation polls the detector's queue of collected, unreleased buffers.
      for (ByteBufAllocator allocator :
          List.of(ByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT)) {
        for (int i = 0; i < 8; i++) {
          allocator.buffer(16).release();
          allocator.directBuffer(16).release();
        }
      }
      Unpooled.buffer(16).release();
    }
    synchronized (REPORTS) {
      return List.copyOf(REPORTS);
    }
  }
}
