package dev.tern.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Puts the harness's processes on CPUs of their own with Linux's {@code taskset}, so that a server
 * whose hundreds of busy handler threads take every core it can get does not starve the client that
 * measures it (or the other way round). A CPU list is what {@code taskset -c} takes ({@code 0},
 * {@code 0,2}, {@code 0-3}); empty means not pinned.
 *
 * <p>Thread-safe: stateless.
 */
final class CpuPinning {
  private static final Pattern CPU_LIST = Pattern.compile("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*");

  private CpuPinning() {}

  /**
   * Checks a CPU list given as {@code --flag}.
   *
   * @throws IllegalArgumentException naming the flag if {@code cpus} is not empty and not a list
   */
  static String check(String flag, String cpus) {
    if (!cpus.isEmpty() && !CPU_LIST.matcher(cpus).matches()) {
      throw new IllegalArgumentException(
          "--" + flag + " must be a CPU list such as 0, 0,2 or 0-3, was '" + cpus + "'");
    }
    return cpus;
  }

  /** What goes before a child's {@code java} to run it on {@code cpus} (nothing if empty). */
  static List<String> launcher(String cpus) {
    return cpus.isEmpty() ? List.of() : List.of("taskset", "-c", cpus);
  }

  /**
   * Moves every thread of this JVM to {@code cpus} (the threads it starts later inherit it); does
   * nothing if {@code cpus} is empty.
   *
   * @throws IOException if {@code taskset} is missing or refuses, with what it printed
   */
  static void pinThisProcess(String cpus) throws IOException, InterruptedException {
    if (cpus.isEmpty()) {
      return;
    }
    String pid = Long.toString(ProcessHandle.current().pid());
    Process taskset;
    try {
      taskset =
          new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, pid)
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new IOException("pinning to CPUs " + cpus + " needs taskset (util-linux)", e);
    }
    String output = new String(taskset.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (taskset.waitFor() != 0) {
      throw new IOException("taskset could not pin this JVM to CPUs " + cpus + ": " + output);
    }
  }
}
