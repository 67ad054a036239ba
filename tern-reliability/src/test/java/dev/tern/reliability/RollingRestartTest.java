package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling restart under load ({@link RollingRestartRun}): three Tern servers, a client with the
 * docs' recommended configuration (round_robin, health checking, retries, hedging, keepalive) and
 * the mixed workload; each server in turn is drained with a deadline after which it is shut down
 * now, then started again on the same port. No call may fail: every call ends as it does without a
 * restart.
 */
class RollingRestartTest {
  /** The drain's deadline: the calls of the workload end within their 3 s deadlines. */
  private static final Duration DRAIN = Duration.ofSeconds(5);

  @Test
  @Timeout(180)
  void restartingEachServerInTurnFailsNoCall() throws Exception {
    RollingRestartRun.Result result = RollingRestartRun.run(new TernPeer(), 6, DRAIN, true);

    assertThat(result.drainedInTime())
        .as("each server drained within %s", DRAIN)
        .containsOnly(true);
    assertThat(result.servingAgain())
        .as("each restarted server serves the client's calls again")
        .containsOnly(true);
    assertThat(result.failed())
        .as(
            "calls that failed during the rolling restart (of %d):%n%s",
            result.measured().size(), result.timeline())
        .isEmpty();
  }
}
