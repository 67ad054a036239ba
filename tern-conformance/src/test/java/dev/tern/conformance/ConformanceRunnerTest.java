package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a failed conformance run shows: the failed cases with their reasons, and the summary. */
class ConformanceRunnerTest {
  private static final String FAILED_RUN =
      String.join(
          "\n",
          "INFO: Tern server listening on 127.0.0.1:40000 (HTTP/2, plaintext, nio)",
          "FAILED: Basic/HTTPVersion:2/TLS:false/unary/success:",
          "\tactual response headers missing \"x-custom-header\"",
          "INFO: Basic/HTTPVersion:2/TLS:false/unimplemented failed (as expected):",
          "\tactual error {code: 13 (internal)}",
          "",
          "Total cases: 646",
          "645 passed, 1 failed",
          "");

  @Test
  void summaryIsTheRunnersClosingLines() {
    assertThat(ConformanceRunner.summary(FAILED_RUN))
        .isEqualTo("Total cases: 646; 645 passed, 1 failed");
    assertThat(ConformanceRunner.summary("panic: no such file\n")).startsWith("no summary");
  }

  @Test
  void reportShowsEachFailedCaseWithItsReasonsButNotExpectedFailures() {
    assertThat(ConformanceRunner.report(FAILED_RUN))
        .isEqualTo(
            "FAILED: Basic/HTTPVersion:2/TLS:false/unary/success:\n"
                + "\tactual response headers missing \"x-custom-header\"\n"
                + "Total cases: 646; 645 passed, 1 failed");
  }

  @Test
  void reportOfARunWithoutFailedCasesIsItsOutput() {
    String output = "Error: could not parse config: unknown field \"bogus\"\n";
    assertThat(ConformanceRunner.report(output)).isEqualTo(output);
  }
}
