package dev.tern.console;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a script of {@code src/test/js} with Node for the tests of the page's modules. */
final class NodeScript {
  private NodeScript() {}

  /** Runs {@code node script args...}; returns its output, asserting it ended with 0 in 30 s. */
  static String run(java.nio.file.Path node, String script, List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of(node.toString(), "src/test/js/" + script));
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("node finished").isTrue();
      out = new String(process.getInputStream().readAllBytes(), UTF_8);
    } finally {
      process.destroyForcibly();
    }
    assertThat(process.exitValue()).as(out).isZero();
    return out;
  }
}
