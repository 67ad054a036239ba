package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine's package is a leaf: its sources import only the JDK and Netty's buffers (and
 * utilities), never the transport's other packages nor Netty's HTTP/2 codec.
 */
class Http2PackageLeafTest {
  private static final List<String> ALLOWED =
      List.of("java.", "io.netty.buffer.", "io.netty.util.", "dev.tern.netty.internal.http2.");

  @Test
  void importsOnlyTheJdkAndNettyBuffers() throws IOException {
    Path dir = Path.of("src/main/java/dev/tern/netty/internal/http2");
    List<Path> sources;
    try (Stream<Path> files = Files.list(dir)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(sources).hasSizeGreaterThan(10);
    for (Path source : sources) {
      for (String line : Files.readAllLines(source)) {
        if (line.startsWith("import ")) {
          String imported = line.substring(7).replace("static ", "");
          assertThat(ALLOWED.stream().anyMatch(imported::startsWith))
              .as("%s: %s", source.getFileName(), line)
              .isTrue();
        }
      }
    }
  }
}
