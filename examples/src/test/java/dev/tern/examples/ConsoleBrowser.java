package dev.tern.examples;

import dev.tern.testtools.ExternalTool;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs a console driver ({@code src/test/web/console-*.mjs}) in headless Chromium through Node:
 * skips the test outside CI without Node, Chromium or the web packages (fails in CI). Screenshots
 * go to {@code -Dtern.console.screenshots=DIR} (docs/images when the docs' pictures are remade),
 * else to the test's folder.
 */
public final class ConsoleBrowser {
  private ConsoleBrowser() {}

  /** Where the drivers save their screenshots, created if needed. */
  public static Path screenshots(Path dir) throws Exception {
    String shots = System.getProperty("tern.console.screenshots");
    Path screenshots = shots == null ? dir : Path.of(shots).toAbsolutePath();
    Files.createDirectories(screenshots);
    return screenshots;
  }

  /** Runs {@code driver} on the console at {@code url}; its output is one JSON line. */
  public static ToolRunner.Result drive(Path dir, String driver, String url) throws Exception {
    Path node = ExternalTool.require(ExternalTool.NODE);
    Path chromium = ExternalTool.require(ExternalTool.CHROMIUM);
    ExternalTool.requireWebPackages();
    return ToolRunner.result(
        dir,
        node,
        Path.of("src/test/web", driver).toString(),
        url,
        screenshots(dir).toString(),
        "--chromium=" + chromium,
        // Within ToolRunner's 30 s, so a page that never finishes says what it showed.
        "--timeout-ms=20000");
  }
}
