package dev.tern.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a soak samples of one process: its heap after a full GC, its resident set size, its threads
 * and its open file descriptors. RSS, threads and descriptors come from Linux's {@code /proc}; the
 * heap from the process itself (a JVM cannot see another one's heap without JMX: {@link
 * SoakServerMain} reports its own).
 */
public record ResourceSample(long heapBytes, long rssBytes, long threads, long fds) {
  /** The sampled quantities, in the order of the report's columns. */
  public enum Metric {
    HEAP("heap after GC", "MiB"),
    RSS("RSS", "MiB"),
    THREADS("threads", ""),
    FDS("fds", "");

    private final String label;
    private final String unit;

    Metric(String label, String unit) {
      this.label = label;
      this.unit = unit;
    }

    public String label() {
      return label;
    }

    /** {@code value} as the report shows it (MiB with one decimal for the byte counts). */
    public String format(double value) {
      return unit.isEmpty()
          ? String.format("%.0f", value)
          : String.format("%.1f %s", value / (1024 * 1024), unit);
    }
  }

  /** The value of {@code metric}. */
  public long get(Metric metric) {
    return switch (metric) {
      case HEAP -> heapBytes;
      case RSS -> rssBytes;
      case THREADS -> threads;
      case FDS -> fds;
    };
  }

  /** Samples process {@code pid} from {@code /proc}, with {@code heapBytes} from the process. */
  public static ResourceSample of(long pid, long heapBytes) {
    Path proc = Path.of("/proc", Long.toString(pid));
    List<String> status;
    try {
      status = Files.readAllLines(proc.resolve("status"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read /proc/" + pid + "/status", e);
    }
    long rssKib = field(status, "VmRSS:", pid);
    long threads = field(status, "Threads:", pid);
    long fds;
    try (Stream<Path> entries = Files.list(proc.resolve("fd"))) {
      fds = entries.count();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list /proc/" + pid + "/fd", e);
    }
    return new ResourceSample(heapBytes, rssKib * 1024, threads, fds);
  }

  /** This JVM's sample: a full GC first, then the heap in use. */
  public static ResourceSample ofThisProcess() {
    return of(ProcessHandle.current().pid(), heapAfterGc());
  }

  /** Asks for a full GC ({@link System#gc}) and returns the heap in use after it. */
  public static long heapAfterGc() {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static long field(List<String> status, String name, long pid) {
    for (String line : status) {
      if (line.startsWith(name)) {
        return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
      }
    }
    throw new IllegalStateException("/proc/" + pid + "/status has no " + name);
  }
}
