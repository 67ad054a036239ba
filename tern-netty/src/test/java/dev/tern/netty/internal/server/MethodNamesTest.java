package dev.tern.netty.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

class MethodNamesTest {
  @Test
  void aPathSeenBeforeGivesTheSameStringWithoutItsSlash() {
    MethodNames names = new MethodNames();
    String first = names.of(new AsciiString("/pkg.Service/Method"));

    assertThat(first).isEqualTo("pkg.Service/Method");
    assertThat(names.of(new AsciiString("/pkg.Service/Method"))).isSameAs(first);
    assertThat(names.of("/pkg.Service/Other")).isEqualTo("pkg.Service/Other");
  }

  @Test
  void endlessDistinctPathsAreStillNamedButNotKept() {
    MethodNames names = new MethodNames();
    for (int i = 0; i < 10 * MethodNames.MAX_PATHS; i++) {
      assertThat(names.of(new AsciiString("/s/m" + i))).isEqualTo("s/m" + i);
    }

    assertThat(names.keptPaths()).isEqualTo(MethodNames.MAX_PATHS);
  }
}
