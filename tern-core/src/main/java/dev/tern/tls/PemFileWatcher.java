package dev.tern.tls;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Re-reads a few files on a period and hands their contents to a loader when any changed. Content
 * the loader rejects (a half-written file, a key that does not match its certificate yet) keeps the
 * previous material and is reported with one WARNING per distinct content, not once per period.
 *
 * <p>Thread-safe: checks are serialized; {@link #close()} may be called from any thread.
 */
final class PemFileWatcher implements Closeable {
  /** Turns the files' contents into material in use; throws to reject them. */
  interface Loader {
    /**
     * Installs new material from {@code contents} (one per file, in order).
     *
     * @return a description of what is now in use, for the log
     * @throws IllegalArgumentException if the contents are not usable
     */
    String load(List<byte[]> contents);
  }

  private final String owner;
  private final List<File> files;
  private final Loader loader;
  private final Logger logger;
  private final ScheduledExecutorService scheduler;

  @GuardedBy("this")
  private List<byte[]> lastSeen;

  PemFileWatcher(String owner, List<File> files, Duration period, Loader loader, Logger logger)
      throws IOException {
    Objects.requireNonNull(period, "period");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive, got " + period);
    }
    this.owner = owner;
    this.files = List.copyOf(files);
    this.loader = loader;
    this.logger = logger;
    List<byte[]> initial = read();
    loader.load(initial); // the first load's errors go to the caller
    synchronized (this) {
      lastSeen = initial;
    }
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "tern-tls-reload-" + files.get(0).getName());
              thread.setDaemon(true);
              return thread;
            });
    long nanos = period.toNanos();
    scheduler.scheduleWithFixedDelay(this::checkQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** Checks the files now; true if new material was loaded. */
  synchronized boolean check() {
    List<byte[]> contents;
    try {
      contents = read();
    } catch (IOException e) {
      // Mid-rotation a file may be missing for a moment; the next check will see it.
      logger.log(Level.FINE, "{0}: cannot read its files yet: {1}", new Object[] {owner, e});
      return false;
    }
    if (same(contents, lastSeen)) {
      return false;
    }
    lastSeen = contents;
    try {
      String loaded = loader.load(contents);
      logger.log(Level.INFO, "{0}: loaded {1}", new Object[] {owner, loaded});
      return true;
    } catch (IllegalArgumentException e) {
      logger.log(
          Level.WARNING,
          "{0}: keeping the previous material, the new files are not usable: {1}",
          new Object[] {owner, e.getMessage()});
      return false;
    }
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, owner + ": reload failed", e);
    }
  }

  private List<byte[]> read() throws IOException {
    List<byte[]> contents = new ArrayList<>(files.size());
    for (File file : files) {
      try {
        contents.add(Files.readAllBytes(file.toPath()));
      } catch (IOException e) {
        throw new IOException("cannot read " + file + ": " + e, e);
      }
    }
    return contents;
  }

  private static boolean same(List<byte[]> a, List<byte[]> b) {
    for (int i = 0; i < a.size(); i++) {
      if (!Arrays.equals(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Stops the periodic checks; the last material stays in use. */
  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
