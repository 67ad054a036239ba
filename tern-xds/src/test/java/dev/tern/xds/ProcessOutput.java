package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process's output (standard output and error merged), read line by line by a daemon thread into
 * a buffer that tests read and wait on.
 *
 * <p>Thread-safe: the buffer is guarded by this object's monitor; nothing blocks holding it except
 * {@link Object#wait}.
 */
final class ProcessOutput {
  @GuardedBy("this")
  private final StringBuilder text = new StringBuilder();

  @GuardedBy("this")
  private boolean ended;

  /** Starts reading {@code in} on a daemon thread called {@code name}. */
  static ProcessOutput read(InputStream in, String name) {
    ProcessOutput output = new ProcessOutput();
    Thread reader = new Thread(() -> output.readAll(in), name);
    reader.setDaemon(true);
    reader.start();
    return output;
  }

  private void readAll(InputStream in) {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        synchronized (this) {
          text.append(line).append('\n');
          notifyAll();
        }
      }
    } catch (IOException e) {
      // The process is gone; what was read stays.
    } finally {
      synchronized (this) {
        ended = true;
        notifyAll();
      }
    }
  }

  synchronized String text() {
    return text.toString();
  }

  /** Waits until {@code condition} holds (true), or the output ends or time runs out (false). */
  synchronized boolean await(Predicate<String> condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.test(text.toString())) {
      long left = deadline - System.nanoTime();
      if (ended || left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
