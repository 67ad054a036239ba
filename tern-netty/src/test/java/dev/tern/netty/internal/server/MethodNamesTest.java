package dev.tern.netty.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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

  @Test
  void connectionsOnSeveralEventLoopsShareTheNames() throws Exception {
    MethodNames names = new MethodNames();
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 2 * MethodNames.MAX_PATHS; i++) {
                    assertThat(names.of(new AsciiString("/s/m" + i))).isEqualTo("s/m" + i);
                  }
                  return names.of(new AsciiString("/s/m0"));
                }));
      }
      String first = names.of("/s/m0");
      for (Future<String> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).isSameAs(first);
      }
    } finally {
      pool.shutdownNow();
    }
    // The bound is checked before each insertion: racing threads overshoot it by one each at most.
    assertThat(names.keptPaths()).isBetween(MethodNames.MAX_PATHS, MethodNames.MAX_PATHS + threads);
  }
}
