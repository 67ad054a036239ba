package dev.tern.netty.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the server holds in memory while a hostile peer attacks it, for asserting that it stays
 * bounded by the server's configured limits.
 *
 * <p>The first signal is the memory Netty's buffer allocator has handed out: the Tern server
 * allocates every {@code ByteBuf} (frames read, frames queued for writing, messages being
 * assembled) from {@link ByteBufAllocator#DEFAULT}, whose metric counts the chunks in use, so a
 * server that queues or buffers without bound grows it by about what it holds. The raw attacker
 * writes through a plain socket and allocates nothing there; the well-behaved Tern client shares
 * the allocator but holds little. A sampler thread records the highest value from {@link #start}
 * on, so a server that holds a lot only while the attack lasts is seen too; the bound asserted is a
 * size derived from the limit under test plus {@link #ALLOCATOR_SLACK}, never a time.
 *
 * <p>The second, coarser signal is the heap in use after a full collection, measured at {@link
 * #start} and again while the attack is in place ({@link #assertRetainedHeapGrowthAtMost}): for
 * what the server keeps on the heap (the promises and entries of queued writes, decoded headers,
 * HPACK tables, stream objects) rather than in buffers. It wanders by a MiB or so between
 * collections, so it is asserted with {@link #HEAP_SLACK} to spare and catches growth of tens of
 * MiB.
 *
 * <p>Thread-safe: the sampler writes the peak atomically; the other methods may be called from any
 * thread.
 */
final class ServerMemory implements AutoCloseable {
  /**
   * Allocator growth an attack may cause beyond what its limit allows: the read buffers of a busy
   * connection and the chunks the allocator reserves for the threads that start allocating.
   */
  static final long ALLOCATOR_SLACK = 2L * 1024 * 1024;

  /**
   * How far the heap after a full collection may wander between two measurements, with the
   * well-behaved client's call and the test's own objects.
   */
  static final long HEAP_SLACK = 8L * 1024 * 1024;

  private static final long SAMPLE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ByteBufAllocatorMetric metric;
  private final long baseline;
  private final long heapBaseline;
  private final AtomicLong peak;
  private final Thread sampler;
  private volatile boolean stopped;

  private ServerMemory() {
    if (!(ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider)) {
      throw new AssertionError(
          "Netty's default allocator reports no memory use: " + ByteBufAllocator.DEFAULT);
    }
    metric = provider.metric();
    heapBaseline = heapAfterGc();
    baseline = used();
    peak = new AtomicLong(baseline);
    sampler = new Thread(this::sample, "server-memory-sampler");
    sampler.setDaemon(true);
  }

  /** Records the allocator's current use as the baseline and samples its peak until closed. */
  static ServerMemory start() {
    ServerMemory memory = new ServerMemory();
    memory.sampler.start();
    return memory;
  }

  private void sample() {
    while (!stopped) {
      peak.accumulateAndGet(used(), Math::max);
      LockSupport.parkNanos(SAMPLE_INTERVAL_NANOS);
    }
  }

  private long used() {
    return metric.usedDirectMemory() + metric.usedHeapMemory();
  }

  /** How far the allocator's use rose above the baseline at its highest, sampled until now. */
  long peakAllocatorGrowth() {
    return Math.max(0, peak.accumulateAndGet(used(), Math::max) - baseline);
  }

  /**
   * Asserts that the allocator never held more than {@code bound} plus {@link #ALLOCATOR_SLACK}
   * above the baseline.
   *
   * @param bound what the limit under test lets the server hold, in bytes
   * @param why which limit, for the failure message
   */
  void assertPeakAllocatorGrowthAtMost(long bound, String why) {
    long grown = peakAllocatorGrowth();
    assertThat(grown)
        .as(
            "the server's buffers grew by %d bytes at their peak; %s allows %d (+ %d slack)",
            grown, why, bound, ALLOCATOR_SLACK)
        .isLessThanOrEqualTo(bound + ALLOCATOR_SLACK);
  }

  /**
   * Asserts that the heap in use after a full collection is at most {@code bound} plus {@link
   * #HEAP_SLACK} above what it was at {@link #start}. Call it while the attack is in place (its
   * connection open), since what the server retains for it is freed once it ends.
   *
   * @param bound what the limit under test lets the server keep on the heap, in bytes
   * @param why which limit, for the failure message
   */
  void assertRetainedHeapGrowthAtMost(long bound, String why) {
    long grown = heapAfterGc() - heapBaseline;
    assertThat(grown)
        .as(
            "the heap after a collection grew by %d bytes; %s allows %d (+ %d slack)",
            grown, why, bound, HEAP_SLACK)
        .isLessThanOrEqualTo(bound + HEAP_SLACK);
  }

  /** The heap in use after a full collection, in bytes. */
  private static long heapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    System.gc();
    System.gc();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** Stops the sampler. Idempotent. */
  @Override
  public void close() {
    stopped = true;
    LockSupport.unpark(sampler);
    try {
      sampler.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
