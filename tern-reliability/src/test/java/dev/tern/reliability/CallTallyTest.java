package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What an overload step's tally reports of its calls' latencies and of the client's own lag. */
class CallTallyTest {
  private static final long MS = 1_000_000;

  @Test
  void aClientBehindItsSchedule_showsAsItsLag_andInTheLatenciesFromTheSchedule() {
    CallTally tally = new CallTally();
    // On time, 2 ms; issued 40 ms late (the client's core busy), then 3 ms on the server's side.
    tally.ended(0, 0, 2 * MS, new Peer.CallEnd("OK", ""));
    tally.ended(10 * MS, 50 * MS, 53 * MS, new Peer.CallEnd("OK", ""));

    assertThat(tally.behindNanos()).isEqualTo(40 * MS);
    assertThat(tally.longestNanos()).isEqualTo(3 * MS);
    assertThat(tally.okLatencyPercentile(99)).isEqualTo(43 * MS);
  }

  @Test
  void aClientOnSchedule_isNotBehind() {
    CallTally tally = new CallTally();
    tally.ended(5 * MS, 5 * MS, 9 * MS, new Peer.CallEnd("DEADLINE_EXCEEDED", "late"));

    assertThat(tally.behindNanos()).isZero();
  }
}
